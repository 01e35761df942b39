import { draftOf } from "./drafts";
import {
  PHASES,
  REPORT_PHASES,
  SECTION_STATES,
  type Phase,
  type RunEvent,
  type RunEventOf,
  type RunView,
  type SectionProgress,
  type TaskProgress,
  type TaskState,
  type TodoTask,
} from "./types";

export const EMPTY_VIEW: RunView = {
  lastSeq: 0,
  status: null,
  phase: null,
  phases: [],
  language: null,
  assessment: null,
  clarifications: [],
  plan: null,
  todo: [],
  sections: [],
  drafts: [],
  progress: {},
  references: [],
  warnings: [],
  remediation: null,
  interrupt: null,
  report: null,
  error: null,
  terminal: false,
  startedAt: null,
  updatedAt: null,
};

/** The events of a run, unique by number and in order, and the view folded from them. */
export interface RunEventLog {
  events: RunEvent[];
  view: RunView;
}

export const EMPTY_LOG: RunEventLog = { events: [], view: EMPTY_VIEW };

function isPhase(value: unknown): value is Phase {
  return (
    typeof value === "string" &&
    ((PHASES as readonly string[]).includes(value) || (REPORT_PHASES as readonly string[]).includes(value))
  );
}

function withPhase(view: RunView, phase: Phase, at: string): RunView {
  if (view.phase === phase) return view;
  const phases = view.phases.map((span) => (span.endedAt === null ? { ...span, endedAt: at } : span));
  const ended = phase === "done";
  phases.push({ phase, startedAt: at, endedAt: ended ? at : null });
  return { ...view, phase, phases };
}

function closePhases(view: RunView, at: string): RunView {
  if (!view.phases.some((span) => span.endedAt === null)) return view;
  return { ...view, phases: view.phases.map((s) => (s.endedAt === null ? { ...s, endedAt: at } : s)) };
}

function withTaskState(todo: TodoTask[], taskId: string, state: TaskState): TodoTask[] {
  return todo.map((task) => (task.id === taskId ? { ...task, state } : task));
}

function progressOf(view: RunView, event: RunEventOf<"task_progress">): RunView {
  const taskId = event.task_id;
  const before: TaskProgress = view.progress[taskId] ?? { step: "pending", steps: 0 };
  const state = event.state ?? undefined;
  const next: TaskProgress = {
    ...before,
    step: event.step,
    steps: before.steps + 1,
    ...(state ? { state } : {}),
    ...(event.queries ? { queries: event.queries } : {}),
  };
  for (const key of ["passages", "followed", "skipped", "batch", "evidence"] as const) {
    const value = event[key];
    if (typeof value === "number") next[key] = value;
  }
  return {
    ...view,
    progress: { ...view.progress, [taskId]: next },
    todo: state ? withTaskState(view.todo, taskId, state) : view.todo,
  };
}

/**
 * A report section's progress after its `section` event: one card per section id, kept in the outline's
 * order (ids s1..sn, compared by number); `rounds` counts its search rounds over all passes; the latest
 * grade wins (a failed grade, then a passed one, is passed); `refined` counts its refinement passes.
 */
function sectionOf(view: RunView, event: RunEventOf<"section">): RunView {
  const { section_id: id, state } = event;
  if (typeof id !== "string" || !id || !SECTION_STATES.includes(state)) return view; // one it cannot read
  const before: SectionProgress = view.sections.find((s) => s.id === id) ?? {
    id,
    title: "",
    state,
    passed: null,
    rounds: 0,
    refined: 0,
  };
  const next: SectionProgress = {
    ...before,
    title: event.title || before.title,
    state,
    rounds: state === "researching" ? before.rounds + 1 : before.rounds,
    ...(typeof event.evidence === "number" ? { evidence: event.evidence } : {}),
  };
  if (typeof event.passed === "boolean") next.passed = event.passed;
  if (state === "refining") next.instructions = event.instructions ?? "";
  if (state === "refined") next.refined = before.refined + 1;
  const others = view.sections.filter((s) => s.id !== id);
  const sections = [...others, next].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  return { ...view, sections };
}

/** The view after one event (pure; the event is known to be the next one in order). */
export function applyEvent(view: RunView, event: RunEvent): RunView {
  let next: RunView = {
    ...view,
    lastSeq: Math.max(view.lastSeq, event.seq),
    startedAt: view.startedAt ?? event.created_at,
    updatedAt: event.created_at,
  };
  switch (event.type) {
    case "status": {
      const status = event.status;
      next = { ...next, status };
      if (status !== "waiting_for_input") next = { ...next, interrupt: null };
      if (status === "running" || status === "queued") next = { ...next, error: null, terminal: false };
      if (status === "error" && event.error) next = { ...next, error: event.error };
      if (isPhase(event.phase)) next = withPhase(next, event.phase, event.created_at);
      return next;
    }
    case "phase":
      return withPhase(next, event.phase, event.created_at);
    case "language":
      return { ...next, language: event.language };
    case "assessment": {
      const { type: _t, run_id: _r, seq: _s, created_at: _c, ...assessment } = event;
      return { ...next, assessment };
    }
    case "clarification": {
      const round = event.round;
      const others = next.clarifications.filter((r) => r.round !== round.round);
      return { ...next, clarifications: [...others, round].sort((a, b) => a.round - b.round) };
    }
    case "plan":
      return { ...next, plan: event.tasks };
    case "todo":
      return { ...next, todo: event.tasks };
    case "task_progress":
      return progressOf(next, event);
    case "section":
      return sectionOf(next, event);
    case "draft_section":
      return draftOf(next, event);
    case "reference_followed": {
      const { seq, task_id, from, mention, to, depth } = event;
      return { ...next, references: [...next.references, { seq, task_id, from, mention, to, depth }] };
    }
    case "warning":
      return { ...next, warnings: [...next.warnings, event.message] };
    case "remediation":
      return { ...next, remediation: event.issues };
    case "interrupt": {
      const { type: _t, run_id: _r, seq: _s, created_at: _c, ...interrupt } = event;
      return { ...next, interrupt, status: "waiting_for_input" };
    }
    case "report":
      // the checked report replaces the drafts
      return { ...next, report: event.result, drafts: [] };
    case "error":
      return closePhases(
        { ...next, status: "error", error: event.message, interrupt: null, terminal: true },
        event.created_at,
      );
    case "done":
      return closePhases({ ...next, status: event.status, interrupt: null, terminal: true }, event.created_at);
    case "outline":
      return next;
  }
}

export function foldEvents(events: readonly RunEvent[]): RunView {
  return events.reduce(applyEvent, EMPTY_VIEW);
}

/**
 * The log with `incoming` added: events already there (same number) are dropped, so a replay after a
 * reconnect or a second delivery changes nothing; an event older than the newest one is put in its place and
 * the view folded again, so the view never depends on the order events arrived in.
 */
export function addEvents(log: RunEventLog, incoming: readonly RunEvent[]): RunEventLog {
  let events = log.events;
  let view = log.view;
  let refold = false;
  const known = new Set(events.map((e) => e.seq));
  for (const event of incoming) {
    if (!Number.isInteger(event.seq) || known.has(event.seq)) continue;
    known.add(event.seq);
    const newest = events.length > 0 ? events[events.length - 1]!.seq : 0;
    if (event.seq > newest) {
      events = [...events, event];
      if (!refold) view = applyEvent(view, event);
    } else {
      events = [...events, event].sort((a, b) => a.seq - b.seq);
      refold = true;
    }
  }
  if (events === log.events) return log;
  return { events, view: refold ? foldEvents(events) : view };
}
