import type { ResearchResult } from "../../../api/generated/types.gen";
import {
  PHASES,
  REPORT_PHASES,
  SECTION_STATES,
  type Assessment,
  type ClarificationRound,
  type Interrupt,
  type Phase,
  type ReferenceFollowed,
  type RunEvent,
  type RunStatus,
  type RunView,
  type SectionProgress,
  type SectionState,
  type TaskProgress,
  type TaskSpec,
  type TaskState,
  type TodoTask,
} from "./types";
import { draftOf } from "./drafts";

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

const TASK_STATES = new Set<string>(["pending", "running", "done", "error"]);

function isPhase(value: unknown): value is Phase {
  return (
    typeof value === "string" &&
    ((PHASES as readonly string[]).includes(value) || (REPORT_PHASES as readonly string[]).includes(value))
  );
}

function isSectionState(value: unknown): value is SectionState {
  return typeof value === "string" && (SECTION_STATES as readonly string[]).includes(value);
}

function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
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

function progressOf(view: RunView, event: RunEvent): RunView {
  const taskId = String(event.task_id ?? "");
  if (!taskId) return view;
  const before: TaskProgress = view.progress[taskId] ?? { step: "pending", steps: 0 };
  const state = typeof event.state === "string" && TASK_STATES.has(event.state) ? (event.state as TaskState) : undefined;
  const next: TaskProgress = {
    ...before,
    step: String(event.step ?? before.step),
    steps: before.steps + 1,
    ...(state ? { state } : {}),
    ...(Array.isArray(event.queries) ? { queries: event.queries.map(String) } : {}),
  };
  for (const key of ["passages", "followed", "skipped", "batch", "evidence"] as const) {
    const value = asNumber(event[key]);
    if (value !== undefined) next[key] = value;
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
function sectionOf(view: RunView, event: RunEvent): RunView {
  const id = typeof event.section_id === "string" ? event.section_id : "";
  if (!id || !isSectionState(event.state)) return view;
  const state = event.state;
  const before: SectionProgress = view.sections.find((s) => s.id === id) ?? {
    id,
    title: "",
    state,
    passed: null,
    rounds: 0,
    refined: 0,
  };
  const evidence = asNumber(event.evidence);
  const next: SectionProgress = {
    ...before,
    title: typeof event.title === "string" && event.title ? event.title : before.title,
    state,
    rounds: state === "researching" ? before.rounds + 1 : before.rounds,
    ...(evidence !== undefined ? { evidence } : {}),
  };
  if (typeof event.passed === "boolean") next.passed = event.passed;
  if (state === "refining") next.instructions = typeof event.instructions === "string" ? event.instructions : "";
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
      const status = event.status as RunStatus;
      next = { ...next, status };
      if (status !== "waiting_for_input") next = { ...next, interrupt: null };
      if (status === "running" || status === "queued") next = { ...next, error: null, terminal: false };
      if (status === "error" && typeof event.error === "string") next = { ...next, error: event.error };
      if (isPhase(event.phase)) next = withPhase(next, event.phase, event.created_at);
      return next;
    }
    case "phase":
      return isPhase(event.phase) ? withPhase(next, event.phase, event.created_at) : next;
    case "language":
      return { ...next, language: typeof event.language === "string" ? event.language : null };
    case "assessment":
      return { ...next, assessment: event as unknown as Assessment };
    case "clarification": {
      const round = event.round as ClarificationRound | undefined;
      if (!round || typeof round.round !== "number") return next;
      const others = next.clarifications.filter((r) => r.round !== round.round);
      return { ...next, clarifications: [...others, round].sort((a, b) => a.round - b.round) };
    }
    case "plan":
      return { ...next, plan: Array.isArray(event.tasks) ? (event.tasks as TaskSpec[]) : [] };
    case "todo":
      return { ...next, todo: Array.isArray(event.tasks) ? (event.tasks as TodoTask[]) : [] };
    case "task_progress":
      return progressOf(next, event);
    case "section":
      return sectionOf(next, event);
    case "draft_section":
      return draftOf(next, event);
    case "reference_followed": {
      const item = event as unknown as Omit<ReferenceFollowed, "seq">;
      const followed: ReferenceFollowed = {
        seq: event.seq,
        task_id: String(item.task_id),
        from: item.from,
        mention: String(item.mention ?? ""),
        to: item.to,
        depth: asNumber(item.depth) ?? 0,
      };
      return { ...next, references: [...next.references, followed] };
    }
    case "warning":
      return { ...next, warnings: [...next.warnings, String(event.message ?? "")] };
    case "remediation":
      return { ...next, remediation: Array.isArray(event.issues) ? event.issues.map(String) : [] };
    case "interrupt": {
      const { type: _t, run_id: _r, seq: _s, created_at: _c, ...payload } = event;
      return { ...next, interrupt: payload as unknown as Interrupt, status: "waiting_for_input" };
    }
    case "report":
      // the checked report replaces the drafts
      return { ...next, report: (event.result as ResearchResult | undefined) ?? null, drafts: [] };
    case "error":
      return closePhases(
        { ...next, status: "error", error: String(event.message ?? ""), interrupt: null, terminal: true },
        event.created_at,
      );
    case "done": {
      const status = (event.status as RunStatus | undefined) ?? "done";
      return closePhases({ ...next, status, interrupt: null, terminal: true }, event.created_at);
    }
    default:
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

/** Parses one SSE message's data; null when it is not a run event. */
export function parseRunEvent(data: string): RunEvent | null {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== "object" || value === null) return null;
    const event = value as Partial<RunEvent>;
    if (typeof event.type !== "string" || typeof event.seq !== "number") return null;
    return event as RunEvent;
  } catch {
    return null;
  }
}
