import type { DraftClaim, DraftSection, RunEvent, RunView } from "./types";

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
  return { ...view, drafts };
}
