import { PHASES, REPORT_PHASES, type Phase, type RunView, type TodoTask } from "./types";

/** What the timeline says of a phase: live (current, waiting for the user), finished, or, once the run has
 * ended, where it stopped (cancelled, failed) and what it never reached (not started, skipped). */
export type PhaseShownState = "current" | "waiting" | "done" | "todo" | "cancelled" | "failed" | "notStarted" | "skipped";

/** What the task list says of a task: its own state while the run goes on; once the run has ended, a task
 * still marked running or pending says how the run ended for it instead. */
export type TaskShownState = TodoTask["state"] | "cancelled" | "failed" | "stopped" | "notStarted";

export interface PhaseRow {
  phase: Exclude<Phase, "done">;
  state: PhaseShownState;
  /** The phase's own time over all its spans (time spent waiting for the user left out); null: never ran. */
  ms: number | null;
}

/** The way a run that ended stopped: null while it goes on or when it finished normally. */
function stopped(view: RunView): "cancelled" | "failed" | null {
  if (!view.terminal) return null;
  if (view.status === "cancelled") return "cancelled";
  if (view.status === "error") return "failed";
  return null;
}

/** The phases the timeline shows (a report run's when it has begun one of them), each with its state and time. */
export function phaseRows(view: RunView, now: number): PhaseRow[] {
  const report = view.phases.some((s) => s.phase !== "done" && (REPORT_PHASES as readonly string[]).includes(s.phase));
  const visible = (report ? REPORT_PHASES : PHASES).filter((p): p is Exclude<Phase, "done"> => p !== "done");
  const ending = stopped(view);
  return visible.map((phase) => {
    const spans = view.phases.filter((s) => s.phase === phase);
    const last = spans.at(-1);
    const ms = last === undefined ? null : spans.reduce((sum, span) => {
      const end = span.endedAt !== null ? Date.parse(span.endedAt) : view.waitingSince !== null ? Date.parse(view.waitingSince) : now;
      return sum + Math.max(0, end - Date.parse(span.startedAt) - span.waitedMs);
    }, 0);
    let state: PhaseShownState;
    if (last === undefined) state = view.terminal ? (ending === null ? "skipped" : "notStarted") : "todo";
    else if (view.phase === phase && ending !== null) state = ending;
    else if (view.phase === phase && !view.terminal && last.endedAt === null)
      state = view.status === "waiting_for_input" ? "waiting" : "current";
    else state = "done";
    return { phase, state, ms };
  });
}

/** A task's state as the list shows it. */
export function taskShownState(task: TodoTask, view: RunView): TaskShownState {
  if (!view.terminal || task.state === "done" || task.state === "error") return task.state;
  if (task.state === "pending") return "notStarted";
  return stopped(view) ?? "stopped";
}
