import { describe, expect, it } from "vitest";
import { parseRunEvent } from "./parse";
import { addEvents, EMPTY_LOG, foldEvents } from "./reducer";
import type { RunEvent } from "./types";

let clock = Date.parse("2026-11-24T00:20:00Z");
/** An event as the app receives it: JSON, parsed into the generated union. */
function ev(seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent {
  clock += 1000;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r3", seq, created_at: new Date(clock).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

function draft(seq: number, index: number, heading: string, attempt: number, texts: string[], fields: Record<string, unknown> = {}) {
  return ev(seq, "draft_section", {
    index,
    heading,
    task_id: `t${index + 1}`,
    attempt,
    truncated: false,
    claims: texts.map((text, i) => ({ text, evidence_ids: i === 0 ? [`t${index + 1}-b1-e1`] : [] })),
    ...fields,
  });
}

/** A research run's synthesis: three sections written side by side (they finish out of order), the second
 * rewritten by the remediation pass, then the checked report. */
function synthesisEvents(): RunEvent[] {
  return [
    ev(1, "status", { status: "running", phase: "dig" }),
    ev(2, "phase", { phase: "validate" }),
    ev(3, "phase", { phase: "synthesize" }),
    draft(4, 2, "Apprentices", 1, ["Apprentices may receive 6 mSv."]),
    draft(5, 0, "Workers", 1, ["Workers may receive 20 mSv.", "Section heading"], { truncated: true }),
    draft(6, 1, "Organ doses", 1, ["The lens limit is 20 mSv.", "The lens limit is 20 mSv."]),
    ev(7, "remediation", { issues: ["Organ doses: 1 of 2 sentences repeated others"] }),
    draft(8, 1, "Organ doses", 2, ["The lens limit is 20 mSv per year."]),
    ev(9, "phase", { phase: "attribute" }),
  ];
}

describe("draft sections in the run view", () => {
  it("are kept one per section in index order, whatever order they were written in", () => {
    const view = foldEvents(synthesisEvents().slice(0, 6));
    expect(view.drafts.map((d) => [d.index, d.heading, d.attempt])).toEqual([
      [0, "Workers", 1],
      [1, "Organ doses", 1],
      [2, "Apprentices", 1],
    ]);
    expect(view.drafts[0]).toMatchObject({
      task_id: "t1",
      truncated: true,
      claims: [
        { text: "Workers may receive 20 mSv.", evidence_ids: ["t1-b1-e1"] },
        { text: "Section heading", evidence_ids: [] },
      ],
    });
  });

  it("a rewrite of the remediation pass replaces its first version", () => {
    const view = foldEvents(synthesisEvents());
    expect(view.drafts.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(view.drafts[1]).toMatchObject({ attempt: 2, claims: [{ text: "The lens limit is 20 mSv per year." }] });
    expect(view.remediation).toEqual(["Organ doses: 1 of 2 sentences repeated others"]);
  });

  it("the checked report replaces the drafts", () => {
    const result = { run_id: "r3", question: "q", language: "en", status: "done", report_markdown: "# q" };
    const view = foldEvents([...synthesisEvents(), ev(10, "report", { result }), ev(11, "done", { status: "done" })]);
    expect(view.drafts).toEqual([]);
    expect(view.report?.report_markdown).toBe("# q");
  });

  it("a replayed or late event counts once, in its place", () => {
    const events = synthesisEvents();
    const once = addEvents(EMPTY_LOG, events);
    expect(addEvents(once, events.slice(3, 8))).toBe(once);
    // the rewrite arrives before the first version it replaces: folded in order, the rewrite still wins
    const late = addEvents(addEvents(EMPTY_LOG, events.filter((e) => e.seq !== 6)), [events[5]!]);
    expect(late.view.drafts).toEqual(once.view.drafts);
  });

  it("ignores draft events it cannot read, and claims without text", () => {
    const view = foldEvents([
      ...synthesisEvents(),
      ev(10, "draft_section", { heading: "no index", claims: [] }),
      ev(11, "draft_section", { index: 3, claims: [] }),
      ev(12, "draft_section", { index: 4, heading: "Half", claims: [{ text: " " }, { evidence_ids: ["x"] }, "junk", { text: "Kept.", evidence_ids: [1, "e"] }] }),
    ]);
    expect(view.drafts.map((d) => d.index)).toEqual([0, 1, 2, 4]);
    expect(view.drafts[3]).toMatchObject({ attempt: 1, truncated: false, task_id: "", claims: [{ text: "Kept.", evidence_ids: ["e"] }] });
  });
});
