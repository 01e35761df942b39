import type { Source } from "../../../api/generated/types.gen";
import type { DraftCitation, DraftClaim, DraftSection, DraftStream, DraftTextClaim, RunEvent, RunView } from "./types";

function isIndex(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function claimsOf(value: unknown): DraftClaim[] {
  if (!Array.isArray(value)) return [];
  const out: DraftClaim[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const claim = item as { text?: unknown; evidence_ids?: unknown };
    if (typeof claim.text !== "string" || !claim.text.trim()) continue;
    const ids = Array.isArray(claim.evidence_ids) ? claim.evidence_ids.filter((id): id is string => typeof id === "string") : [];
    out.push({ text: claim.text, evidence_ids: ids });
  }
  return out;
}

/**
 * The view after a `draft_section` event: one draft per section index, in index order; the latest event of
 * an index replaces the version before it (the remediation pass's rewrite comes after the first version, a
 * resumed run's sections after the ones written before it stopped). An event without a readable index or
 * heading changes nothing.
 */
export function draftOf(view: RunView, event: RunEvent): RunView {
  if (!isIndex(event.index) || typeof event.heading !== "string") return view;
  const attempt = typeof event.attempt === "number" && event.attempt > 0 ? event.attempt : 1;
  const draft: DraftSection = {
    index: event.index,
    heading: event.heading,
    task_id: typeof event.task_id === "string" ? event.task_id : "",
    attempt,
    truncated: event.truncated === true,
    claims: claimsOf(event.claims),
  };
  const drafts = [...view.drafts.filter((d) => d.index !== draft.index), draft].sort((a, b) => a.index - b.index);
  // the section as written ends its stream
  return { ...view, drafts, streams: view.streams.filter((s) => s.index !== draft.index) };
}

function streamedClaimsOf(value: unknown): DraftTextClaim[] {
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).flatMap((item) => {
    const [claim] = claimsOf([item]);
    if (!claim) return [];
    return [{ ...claim, complete: (item as { complete?: unknown }).complete === true }];
  });
}

function citationsOf(value: unknown): Record<string, DraftCitation> {
  if (typeof value !== "object" || value === null) return {};
  const out: Record<string, DraftCitation> = {};
  for (const [id, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item !== "object" || item === null) continue;
    const c = item as Record<string, unknown>;
    const { collection, document, page, quote, start, end } = c;
    if (c.evidence_id !== id || typeof collection !== "string" || typeof document !== "string") continue;
    if (typeof page !== "number" || typeof start !== "number" || typeof end !== "number" || typeof quote !== "string") continue;
    out[id] = {
      evidence_id: id,
      collection,
      document,
      page,
      section: typeof c.section === "string" ? c.section : null,
      quote,
      start,
      end,
      kind: c.kind === "web" ? "web" : "document",
      url: typeof c.url === "string" ? c.url : null,
    };
  }
  return out;
}

/**
 * The view after a `draft_text` event: the section's text so far replaces what its previous event showed (a
 * retry or the remediation pass starts again from its beginning); the checked ids it newly cites are kept
 * for the whole run (an id points at the same evidence throughout).
 */
export function draftTextOf(view: RunView, event: RunEvent): RunView {
  if (!isIndex(event.index) || typeof event.heading !== "string") return view;
  const stream: DraftStream = {
    index: event.index,
    heading: event.heading,
    attempt: typeof event.attempt === "number" && event.attempt > 0 ? event.attempt : 1,
    claims: streamedClaimsOf(event.claims),
  };
  const streams = [...view.streams.filter((s) => s.index !== stream.index), stream].sort((a, b) => a.index - b.index);
  return { ...view, streams, draftCitations: { ...view.draftCitations, ...citationsOf(event.citations) } };
}

/**
 * The draft's citation numbers: each checked evidence id the shown sentences cite, numbered [1], [2], ... in
 * the order it first appears (sections in index order, a section being written in place of its earlier
 * version). Ids without a checked citation get no number.
 */
export function draftNumbers(view: Pick<RunView, "drafts" | "streams" | "draftCitations">): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const section of shownDrafts(view)) {
    for (const claim of section.claims) {
      for (const id of claim.evidence_ids) {
        if (view.draftCitations[id] && !numbers.has(id)) numbers.set(id, numbers.size + 1);
      }
    }
  }
  return numbers;
}

/** What the draft shows per section index: the section being written, else the section as written. */
export function shownDrafts(view: Pick<RunView, "drafts" | "streams">): Array<DraftSection | (DraftStream & { streaming: true })> {
  const byIndex = new Map<number, DraftSection | (DraftStream & { streaming: true })>();
  for (const d of view.drafts) byIndex.set(d.index, d);
  for (const s of view.streams) byIndex.set(s.index, { ...s, streaming: true });
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/** A checked draft citation as the citation viewer opens it (numbered as the draft numbers it). */
export function draftSource(view: Pick<RunView, "drafts" | "streams" | "draftCitations">, evidenceId: string): Source | null {
  const citation = view.draftCitations[evidenceId];
  if (!citation || citation.kind === "web") return null;
  const n = draftNumbers(view).get(evidenceId) ?? 0;
  return { ...citation, n, chain: [], support: null };
}
