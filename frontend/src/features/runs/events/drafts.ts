import type { DraftClaim, DraftSection, RunEventOf, RunView } from "./types";

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
  return { ...view, drafts };
}
