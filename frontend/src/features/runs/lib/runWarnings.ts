import type { ResearchResult } from "../../../api/generated/types.gen";

/**
 * The report with the run's warnings (its `warning` events) that it does not hold already, after its own:
 * a run page shows one Warnings box, the report's, once there is a report.
 */
export function withRunWarnings(report: ResearchResult, runWarnings: readonly string[]): ResearchResult {
  const own = report.warnings ?? [];
  const known = new Set(own);
  const extra = runWarnings.filter((warning) => !known.has(warning));
  return extra.length === 0 ? report : { ...report, warnings: [...own, ...new Set(extra)] };
}
