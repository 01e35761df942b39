import { describe, expect, it } from "vitest";
import { parseRunEvent } from "./parse";
import { foldEvents } from "./reducer";
import type { ClarificationRound, RunEvent } from "./types";

let clock = Date.parse("2026-11-24T00:20:00Z");
function ev(seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent {
  clock += 1000;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r4", seq, created_at: new Date(clock).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

function clarificationRound(n: number, questions: string[]): ClarificationRound {
  return {
    round: n,
    questions,
    understanding: `Understanding after round ${n}`,
    coverage: 0.3 * n,
    gaps: [],
    queries: ["q1", "q2"],
    passages: [],
    dedup_ratio: 0,
    answer: null,
  };
}

function progress(seq: number, round: number, step: string, fields: Record<string, unknown> = {}): RunEvent {
  return ev(seq, "clarification_progress", { round, step, queries: 0, searched: 0, passages: 0, ...fields });
}

/** Round 1 asked and answered; round 2 searched; as the server sends it (the resumed node sends its round
 * again, without the answer, before the answer). */
const EXCHANGE: RunEvent[] = [
  ev(1, "status", { status: "running", phase: "clarify" }),
  ev(2, "phase", { phase: "clarify" }),
  progress(3, 1, "planning"),
  progress(4, 1, "searching", { queries: 2 }),
  progress(5, 1, "searching", { queries: 2, searched: 1, passages: 5 }),
  progress(6, 1, "searching", { queries: 2, searched: 2, passages: 9 }),
  progress(7, 1, "analyzing", { queries: 2, searched: 2, passages: 8 }),
  ev(8, "clarification", { round: clarificationRound(1, ["Who?", "Since when?"]) }),
  ev(9, "interrupt", { kind: "clarification", ...clarificationRound(1, ["Who?", "Since when?"]) }),
  ev(10, "status", { status: "waiting_for_input" }),
  ev(11, "status", { status: "running" }),
  ev(12, "clarification", { round: clarificationRound(1, ["Who?", "Since when?"]) }),
  ev(13, "clarification_answer", { round: 1, answer: "Workers, since 2019", ended: false }),
  progress(14, 2, "planning"),
  progress(15, 2, "searching", { queries: 3, searched: 2, passages: 12 }),
];

describe("clarification in the run view", () => {
  it("keeps the user's answer on its round and follows what clarification is doing", () => {
    const view = foldEvents(EXCHANGE);
    expect(view.clarifications.map((r) => [r.round, r.answer])).toEqual([[1, "Workers, since 2019"]]);
    expect(view.clarifyActivity).toEqual({ round: 2, step: "searching", queries: 3, searched: 2, passages: 12 });
  });

  it("keeps an answer when the round's event comes again", () => {
    const view = foldEvents([...EXCHANGE, ev(16, "clarification", { round: clarificationRound(1, ["Who?"]) })]);
    expect(view.clarifications[0]).toMatchObject({ questions: ["Who?"], answer: "Workers, since 2019" });
  });

  it("shows no activity while waiting for the user, after the phase, or once the run stopped", () => {
    expect(foldEvents(EXCHANGE.slice(0, 7)).clarifyActivity?.step).toBe("analyzing");
    expect(foldEvents(EXCHANGE.slice(0, 9)).clarifyActivity).toBeNull(); // the interrupt
    const ended = [
      ...EXCHANGE,
      ev(16, "clarification", { round: clarificationRound(2, ["Which law?"]) }),
      ev(17, "interrupt", { kind: "clarification", ...clarificationRound(2, ["Which law?"]) }),
      ev(18, "status", { status: "running" }),
      ev(19, "clarification_answer", { round: 2, answer: "/end", ended: true }),
      progress(20, 2, "anchoring"),
    ];
    expect(foldEvents(ended).clarifyActivity?.step).toBe("anchoring");
    expect(foldEvents(ended).clarifications.map((r) => r.answer)).toEqual(["Workers, since 2019", "/end"]);
    expect(foldEvents([...ended, ev(21, "phase", { phase: "assess" })]).clarifyActivity).toBeNull();
    expect(foldEvents([...EXCHANGE, ev(16, "status", { status: "cancelled" })]).clarifyActivity).toBeNull();
    expect(foldEvents([...EXCHANGE, ev(16, "error", { message: "boom" })]).clarifyActivity).toBeNull();
  });

  it("ignores a progress event it does not understand", () => {
    const view = foldEvents([...EXCHANGE, progress(16, 2, "dreaming")]);
    expect(view.clarifyActivity?.step).toBe("searching");
  });
});
