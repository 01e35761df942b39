import type { Source } from "../../../api/generated/types.gen";
import type { DraftClaim, DraftSection, DraftStream, DraftTextClaim, RunEventOf, RunView } from "./types";

function isIndex(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** The claims with a text; evidence ids that are not strings are dropped (the server's data is typed, but a
 * draft is the model's words: it is shown only as far as it can be read). */
function claimsOf(claims: readonly unknown[]): DraftClaim[] {
  const out: DraftClaim[] = [];
  for (const claim of claims) {
    if (typeof claim !== "object" || claim === null || !("text" in claim)) continue;
    if (typeof claim.text !== "string" || !claim.text.trim()) continue;
    const ids = "evidence_ids" in claim && Array.isArray(claim.evidence_ids) ? claim.evidence_ids : [];
    out.push({ text: claim.text, evidence_ids: ids.filter((id): id is string => typeof id === "string") });
  }
  return out;
}

/**
 * The view after a `draft_section` event: one draft per section index, in index order; the latest event of
 * an index replaces the version before it (the remediation pass's rewrite comes after the first version, a
 * resumed run's sections after the ones written before it stopped). An event without a readable index or
 * heading changes nothing.
 */
export function draftOf(view: RunView, event: RunEventOf<"draft_section">): RunView {
  if (!isIndex(event.index) || typeof event.heading !== "string") return view;
  const draft: DraftSection = {
    index: event.index,
    heading: event.heading,
    task_id: typeof event.task_id === "string" ? event.task_id : "",
    attempt: event.attempt > 0 ? event.attempt : 1,
    truncated: event.truncated === true,
    claims: Array.isArray(event.claims) ? claimsOf(event.claims) : [],
  };
  const drafts = [...view.drafts.filter((d) => d.index !== draft.index), draft].sort((a, b) => a.index - b.index);
  // the section as written ends its stream
  return { ...view, drafts, streams: view.streams.filter((s) => s.index !== draft.index) };
}

/**
 * The view after a `draft_text` event: the section's text so far replaces what its previous event showed (a
 * retry or the remediation pass starts again from its beginning); the checked ids it newly cites are kept
 * for the whole run (an id points at the same evidence throughout).
 */
export function draftTextOf(view: RunView, event: RunEventOf<"draft_text">): RunView {
  if (!isIndex(event.index)) return view;
  const claims: DraftTextClaim[] = event.claims.flatMap((item) => {
    const [claim] = claimsOf([item]);
    return claim ? [{ ...claim, complete: item.complete === true }] : [];
  });
  const stream: DraftStream = {
    index: event.index,
    heading: event.heading,
    attempt: event.attempt > 0 ? event.attempt : 1,
    claims,
  };
  const streams = [...view.streams.filter((s) => s.index !== stream.index), stream].sort((a, b) => a.index - b.index);
  return { ...view, streams, draftCitations: { ...view.draftCitations, ...event.citations } };
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
