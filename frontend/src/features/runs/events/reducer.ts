import { draftOf, draftTextOf } from "./drafts";
import {
  PHASES,
  REPORT_PHASES,
  SECTION_STATES,
  type ClarifyStep,
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
  clarifyActivity: null,
  plan: null,
  todo: [],
  sections: [],
  drafts: [],
  streams: [],
  draftCitations: {},
  progress: {},
  references: [],
  warnings: [],
  remediation: null,
  interrupt: null,
  report: null,
  error: null,
  terminal: false,
  waitingSince: null,
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

/** The view with the open phase's wait for the user ended at ``at`` (its time added to the span's
 * ``waitedMs``); unchanged while the run does not wait. */
function endWait(view: RunView, at: string): RunView {
  if (view.waitingSince === null) return view;
  const waited = Math.max(0, Date.parse(at) - Date.parse(view.waitingSince));
  const phases = view.phases.map((span) => (span.endedAt === null ? { ...span, waitedMs: span.waitedMs + waited } : span));
  return { ...view, phases, waitingSince: null };
}

function startWait(view: RunView, at: string): RunView {
  return view.waitingSince === null ? { ...view, waitingSince: at } : view;
}

/** The view in ``phase`` from ``at``: a new span, unless the phase's span is still open (a run that goes on
 * in the phase it stopped in, after a retry or an answer, opens a new span of it). */
function withPhase(view: RunView, phase: Phase, at: string): RunView {
  const open = view.phases.some((span) => span.endedAt === null);
  if (view.phase === phase && (open || phase === "done" || view.terminal)) return view;
  const settled = endWait(view, at);
  const phases = settled.phases.map((span) => (span.endedAt === null ? { ...span, endedAt: at } : span));
  const ended = phase === "done";
  phases.push({ phase, startedAt: at, endedAt: ended ? at : null, waitedMs: 0 });
  return { ...settled, phase, phases };
}

function closePhases(view: RunView, at: string): RunView {
  const settled = endWait(view, at);
  if (!settled.phases.some((span) => span.endedAt === null)) return settled;
  return { ...settled, phases: settled.phases.map((s) => (s.endedAt === null ? { ...s, endedAt: at } : s)) };
}

/** A round of clarification after its `clarification` event: an answer given before stays (the event comes
 * again when the run resumes, without it). */
function clarificationOf(view: RunView, event: RunEventOf<"clarification">): RunView {
  const round = event.round;
  const before = view.clarifications.find((r) => r.round === round.round);
  const next = { ...round, answer: round.answer ?? before?.answer ?? null };
  const others = view.clarifications.filter((r) => r.round !== round.round);
  return { ...view, clarifications: [...others, next].sort((a, b) => a.round - b.round) };
}

/** The user's answer to a round (`clarification_answer`): recorded on the round; the run works again. */
function clarificationAnswerOf(view: RunView, event: RunEventOf<"clarification_answer">): RunView {
  const clarifications = view.clarifications.map((r) => (r.round === event.round ? { ...r, answer: event.answer } : r));
  return { ...view, clarifications, clarifyActivity: null };
}

const CLARIFY_STEPS: readonly ClarifyStep[] = ["planning", "searching", "analyzing", "anchoring"];

/** What clarification is doing now (`clarification_progress`); a step this app does not know (a newer
 * server's) changes nothing. */
function clarifyActivityOf(view: RunView, event: RunEventOf<"clarification_progress">): RunView {
  const { round, step, queries, searched, passages } = event;
  if (!CLARIFY_STEPS.includes(step)) return view;
  return { ...view, clarifyActivity: { round, step, queries, searched, passages } };
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
      next = status === "waiting_for_input" ? startWait(next, event.created_at) : endWait(next, event.created_at);
      if (status !== "waiting_for_input") next = { ...next, interrupt: null };
      if (status !== "running") next = { ...next, clarifyActivity: null };
      if (status === "running" || status === "queued") next = { ...next, error: null, terminal: false };
      if (status === "error" && event.error) next = { ...next, error: event.error };
      if (isPhase(event.phase)) next = withPhase(next, event.phase, event.created_at);
      return next;
    }
    case "phase":
      if (event.phase !== "clarify") next = { ...next, clarifyActivity: null };
      return withPhase(next, event.phase, event.created_at);
    case "language":
      return { ...next, language: event.language };
    case "assessment": {
      const { type: _t, run_id: _r, seq: _s, created_at: _c, ...assessment } = event;
      return { ...next, assessment };
    }
    case "clarification":
      return clarificationOf(next, event);
    case "clarification_answer":
      return clarificationAnswerOf(next, event);
    case "clarification_progress":
      return clarifyActivityOf(next, event);
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
    case "draft_text":
      return draftTextOf(next, event);
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
      return startWait({ ...next, interrupt, status: "waiting_for_input", clarifyActivity: null }, event.created_at);
    }
    case "report":
      // the checked report replaces the drafts
      return { ...next, report: event.result, drafts: [], streams: [] };
    case "error":
      return closePhases(
        { ...next, status: "error", error: event.message, interrupt: null, clarifyActivity: null, terminal: true },
        event.created_at,
      );
    case "done":
      return closePhases({ ...next, status: event.status, interrupt: null, clarifyActivity: null, terminal: true }, event.created_at);
    case "outline":
      return next;
  }
}

export function foldEvents(events: readonly RunEvent[]): RunView {
  return events.reduce(applyEvent, EMPTY_VIEW);
}

/** Whether `sorted` (events in ascending number) holds an event numbered `seq` (a binary search). */
function holds(sorted: readonly RunEvent[], seq: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = sorted[middle]!.seq;
    if (found === seq) return true;
    if (found < seq) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/**
 * The log with `incoming` added: events already there (same number) are dropped, so a replay after a
 * reconnect or a second delivery changes nothing; an event older than the newest one is put in its place and
 * the view folded again, so the view never depends on the order events arrived in. Events in order (the
 * stream's own case) cost their own fold and one copy of the list per call, not a pass over the whole log
 * per event: a long run replayed event by event stays linear.
 */
export function addEvents(log: RunEventLog, incoming: readonly RunEvent[]): RunEventLog {
  const appended: RunEvent[] = [];
  const late: RunEvent[] = [];
  let newest = log.events.length > 0 ? log.events[log.events.length - 1]!.seq : 0;
  let view = log.view;
  for (const event of incoming) {
    if (!Number.isInteger(event.seq)) continue;
    if (event.seq > newest) {
      appended.push(event);
      newest = event.seq;
      view = applyEvent(view, event);
    } else if (!holds(log.events, event.seq) && !holds(appended, event.seq) && !late.some((e) => e.seq === event.seq)) {
      late.push(event);
    }
  }
  if (appended.length === 0 && late.length === 0) return log;
  const events = log.events.concat(appended);
  if (late.length === 0) return { events, view };
  const all = events.concat(late).sort((a, b) => a.seq - b.seq);
  return { events: all, view: foldEvents(all) };
}
