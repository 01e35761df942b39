import { describe, expect, it } from "vitest";
import { parseRunEvent } from "./parse";
import { addEvents, EMPTY_LOG, foldEvents } from "./reducer";
import type { RunEvent } from "./types";

let clock = Date.parse("2026-11-23T21:40:00Z");
/** An event as the app receives it: JSON, parsed into the generated union. */
function ev(seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent {
  clock += 1000;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r1", seq, created_at: new Date(clock).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

const clarification = {
  kind: "clarification",
  round: 1,
  questions: ["Which dose?"],
  understanding: "Dose limits",
  coverage: 0.4,
  gaps: ["worker category"],
  queries: ["Dosisgrenzwerte"],
  passages: [{ chunk_id: "c1", document: "StrlSchG.pdf", page: 3, section: "§ 78", score: 0.8, snippet: "..." }],
  dedup_ratio: 0.25,
};

/** A whole interactive run: clarification, plan, digging two tasks, a followed reference, the report. */
function runEvents(): RunEvent[] {
  return [
    ev(1, "status", { status: "running", phase: "clarify" }),
    ev(2, "phase", { phase: "clarify" }),
    ev(3, "clarification", { round: { ...clarification } }),
    ev(4, "interrupt", clarification),
    ev(5, "status", { status: "waiting_for_input", phase: "clarify" }),
    ev(6, "status", { status: "running", phase: "clarify" }),
    ev(7, "phase", { phase: "assess" }),
    ev(8, "phase", { phase: "plan" }),
    ev(9, "plan", { tasks: [{ id: "t1", title: "Limits" }, { id: "t2", title: "Apprentices" }] }),
    ev(10, "todo", { tasks: [{ id: "t1", title: "Limits", state: "pending" }, { id: "t2", title: "Apprentices", state: "pending" }] }),
    ev(11, "phase", { phase: "dig" }),
    ev(12, "task_progress", { task_id: "t1", step: "searching", state: "running" }),
    ev(13, "task_progress", { task_id: "t1", step: "searched", queries: ["q1"], passages: 7 }),
    ev(14, "reference_followed", {
      task_id: "t1",
      from: { document: "StrlSchG.pdf", section: "§ 78" },
      mention: "§ 5 StrlSchV",
      to: { document: "StrlSchV.pdf", section: "§ 5" },
      depth: 1,
    }),
    ev(15, "warning", { message: "gate fell back" }),
    ev(16, "task_progress", { task_id: "t1", step: "done", state: "done", evidence: 4 }),
    ev(17, "phase", { phase: "synthesize" }),
    ev(18, "report", { result: { run_id: "r1", question: "Q", language: "de", status: "done", report_markdown: "# R" } }),
    ev(19, "done", { status: "done" }),
  ];
}

describe("run event reducer", () => {
  it("folds a run into its view: phases, clarification, plan, todo with progress, references, report", () => {
    const view = foldEvents(runEvents());
    expect(view.lastSeq).toBe(19);
    expect(view.status).toBe("done");
    expect(view.terminal).toBe(true);
    expect(view.phases.map((p) => p.phase)).toEqual(["clarify", "assess", "plan", "dig", "synthesize"]);
    expect(view.phases.every((p) => p.endedAt !== null)).toBe(true);
    expect(view.clarifications).toHaveLength(1);
    expect(view.interrupt).toBeNull();
    expect(view.plan?.map((t) => t.id)).toEqual(["t1", "t2"]);
    expect(view.todo).toEqual([
      { id: "t1", title: "Limits", state: "done" },
      { id: "t2", title: "Apprentices", state: "pending" },
    ]);
    expect(view.progress.t1).toMatchObject({ step: "done", passages: 7, evidence: 4, queries: ["q1"], steps: 3 });
    expect(view.references).toHaveLength(1);
    expect(view.references[0]).toMatchObject({ mention: "§ 5 StrlSchV", to: { document: "StrlSchV.pdf" } });
    expect(view.warnings).toEqual(["gate fell back"]);
    expect(view.report?.report_markdown).toBe("# R");
  });

  it("holds the pending interrupt until the run goes on", () => {
    const events = runEvents();
    const waiting = foldEvents(events.slice(0, 5));
    expect(waiting.status).toBe("waiting_for_input");
    expect(waiting.interrupt).toMatchObject({ kind: "clarification", round: 1, questions: ["Which dose?"] });
    const resumed = foldEvents(events.slice(0, 6));
    expect(resumed.interrupt).toBeNull();
    expect(resumed.status).toBe("running");
  });

  it("marks the running task current and its phase live", () => {
    const view = foldEvents(runEvents().slice(0, 13));
    expect(view.todo.find((t) => t.id === "t1")?.state).toBe("running");
    expect(view.phase).toBe("dig");
    expect(view.phases.at(-1)).toMatchObject({ phase: "dig", endedAt: null });
    expect(view.terminal).toBe(false);
  });

  it("drops events it already has: a replay after a reconnect changes nothing", () => {
    const events = runEvents();
    const first = addEvents(EMPTY_LOG, events.slice(0, 12));
    // the stream broke after event 12; the reconnect (?after=10 by a lagging cursor) replays 11 and 12
    const replayed = addEvents(first, events.slice(10));
    expect(replayed.events.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(replayed.view).toEqual(foldEvents(events));
    const again = addEvents(replayed, events);
    expect(again).toBe(replayed);
    expect(again.view.warnings).toEqual(["gate fell back"]);
    expect(again.view.references).toHaveLength(1);
  });

  it("keeps each event once when one batch repeats events and brings late ones twice", () => {
    const events = runEvents();
    const start = addEvents(EMPTY_LOG, [...events.slice(4, 8)]);
    const batch = [events[9]!, events[9]!, events[2]!, events[5]!, events[2]!, events[0]!, ...events.slice(8)];
    const log = addEvents(start, batch);
    const missing = [events[1]!.seq, events[3]!.seq]; // in neither the log nor the batch
    const expected = events.filter((e) => !missing.includes(e.seq));
    expect(log.events.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
    expect(log.view).toEqual(foldEvents(expected));
  });

  it("gives the same view whatever order the events arrive in", () => {
    const events = runEvents();
    const shuffled = [events[3]!, events[0]!, events[12]!, events[1]!, ...events.slice(4, 12), events[2]!, ...events.slice(13)].reverse();
    let log = EMPTY_LOG;
    for (const event of shuffled) log = addEvents(log, [event]);
    expect(log.events.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(log.view).toEqual(foldEvents(events));
  });

  it("a failed run has its error and is terminal; a retry clears both", () => {
    const events = [
      ev(1, "status", { status: "running", phase: "clarify" }),
      ev(2, "phase", { phase: "dig" }),
      ev(3, "status", { status: "error", phase: "dig", error: "Ollama not reachable" }),
      ev(4, "error", { message: "Ollama not reachable at http://127.0.0.1:11434; resume with POST /resume" }),
    ];
    const failed = foldEvents(events);
    expect(failed.status).toBe("error");
    expect(failed.terminal).toBe(true);
    expect(failed.error).toContain("Ollama not reachable");
    const retried = foldEvents([...events, ev(5, "status", { status: "queued", phase: "dig" })]);
    expect(retried.error).toBeNull();
    expect(retried.terminal).toBe(false);
  });

  it("parses SSE data and refuses what is not a run event", () => {
    expect(parseRunEvent('{"type":"phase","seq":3,"run_id":"r","created_at":"x","phase":"plan"}')).toMatchObject({ seq: 3 });
    expect(parseRunEvent("not json")).toBeNull();
    expect(parseRunEvent('{"change":"ready"}')).toBeNull();
  });
});
