import { describe, expect, it } from "vitest";
import { parseRunEvent } from "./parse";
import { addEvents, EMPTY_LOG, foldEvents } from "./reducer";
import type { RunEvent } from "./types";

let clock = Date.parse("2026-11-24T00:10:00Z");
/** An event as the app receives it: JSON, parsed into the generated union. */
function ev(seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent {
  clock += 1000;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r2", seq, created_at: new Date(clock).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

function section(seq: number, id: string, title: string, state: string, fields: Record<string, unknown> = {}): RunEvent {
  return ev(seq, "section", { section_id: id, title, state, ...fields });
}

/** A report run: outline, two research sections in parallel (s2's first grade fails), one refinement of s2. */
function reportEvents(): RunEvent[] {
  return [
    ev(1, "status", { status: "running", phase: "outline" }),
    ev(2, "phase", { phase: "outline" }),
    ev(3, "phase", { phase: "sections" }),
    section(4, "s2", "Organ doses", "researching", { round: 1, refinement: 0 }),
    section(5, "s10", "Apprentices", "researching", { round: 1, refinement: 0 }),
    section(6, "s1", "Effective dose", "researching", { round: 1, refinement: 0 }),
    section(7, "s2", "Organ doses", "writing", { evidence: 3 }),
    section(8, "s2", "Organ doses", "graded", { passed: false, round: 1 }),
    section(9, "s2", "Organ doses", "researching", { round: 2, refinement: 0 }),
    section(10, "s2", "Organ doses", "graded", { passed: true, round: 2 }),
    section(11, "s2", "Organ doses", "done", { evidence: 5, passed: true }),
    section(12, "s1", "Effective dose", "graded", { passed: true, round: 1 }),
    section(13, "s1", "Effective dose", "done", { evidence: 4, passed: true }),
    ev(14, "phase", { phase: "review" }),
    section(15, "s2", "Organ doses", "refining", { instructions: "add the lens limit" }),
    section(16, "s2", "Organ doses", "researching", { round: 1, refinement: 1 }),
    section(17, "s2", "Organ doses", "refined", { evidence: 7, passed: true }),
    ev(18, "phase", { phase: "compile" }),
  ];
}

describe("report sections in the run view", () => {
  it("keeps one card per section in the outline's order, whatever order the sections report in", () => {
    const view = foldEvents(reportEvents());
    expect(view.sections.map((s) => s.id)).toEqual(["s1", "s2", "s10"]);
    expect(view.sections.map((s) => s.title)).toEqual(["Effective dose", "Organ doses", "Apprentices"]);
    expect(view.sections[2]).toMatchObject({ state: "researching", passed: null, rounds: 1, refined: 0 });
  });

  it("shows a failed grade, then the passing one, then the refinement", () => {
    const events = reportEvents();
    const afterFail = foldEvents(events.slice(0, 8)).sections.find((s) => s.id === "s2");
    expect(afterFail).toMatchObject({ state: "graded", passed: false, rounds: 1, evidence: 3 });
    const afterPass = foldEvents(events.slice(0, 10)).sections.find((s) => s.id === "s2");
    expect(afterPass).toMatchObject({ state: "graded", passed: true, rounds: 2 });
    const refining = foldEvents(events.slice(0, 15)).sections.find((s) => s.id === "s2");
    expect(refining).toMatchObject({ state: "refining", instructions: "add the lens limit", refined: 0 });
    const end = foldEvents(events).sections.find((s) => s.id === "s2");
    expect(end).toMatchObject({ state: "refined", passed: true, rounds: 3, refined: 1, evidence: 7 });
    expect(foldEvents(events).sections.find((s) => s.id === "s1")).toMatchObject({ state: "done", refined: 0, rounds: 1 });
  });

  it("counts a replayed or late event once (dedup by number, refold in order)", () => {
    const events = reportEvents();
    const once = addEvents(EMPTY_LOG, events);
    const replayed = addEvents(once, events.slice(3, 12));
    expect(replayed).toBe(once);
    const shuffled = addEvents(addEvents(EMPTY_LOG, events.filter((e) => e.seq !== 16)), [events[15]!]);
    expect(shuffled.view.sections).toEqual(once.view.sections);
    expect(shuffled.view.sections.find((s) => s.id === "s2")?.rounds).toBe(3);
  });

  it("follows the report phases and ignores section events it cannot read", () => {
    const view = foldEvents([
      ...reportEvents(),
      section(19, "s3", "Bad", "exploding"),
      ev(20, "section", { title: "no id", state: "writing" }),
    ]);
    expect(view.phase).toBe("compile");
    expect(view.phases.map((p) => p.phase)).toEqual(["outline", "sections", "review", "compile"]);
    expect(view.sections.map((s) => s.id)).toEqual(["s1", "s2", "s10"]);
  });
});
