import { describe, expect, it } from "vitest";
import type { ResearchResult } from "../../../api/generated/types.gen";
import { withRunWarnings } from "./runWarnings";

const report: ResearchResult = {
  run_id: "r1",
  question: "Wer prüft?",
  language: "de",
  status: "done",
  report_markdown: "# Bericht",
  warnings: ["2 citation(s) are weakly supported"],
};

describe("one Warnings box on a run page", () => {
  it("adds the run's warnings the report does not hold, once each, after the report's", () => {
    const merged = withRunWarnings(report, ["task t2 found nothing", "2 citation(s) are weakly supported", "task t2 found nothing"]);
    expect(merged.warnings).toEqual(["2 citation(s) are weakly supported", "task t2 found nothing"]);
    expect(withRunWarnings(report, ["2 citation(s) are weakly supported"])).toBe(report);
    expect(withRunWarnings({ ...report, warnings: undefined }, ["a"]).warnings).toEqual(["a"]);
  });
});
