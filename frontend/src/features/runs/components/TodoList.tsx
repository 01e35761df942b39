import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { taskShownState, type TaskShownState } from "../events/shownStates";
import type { RunView } from "../events/types";

const STEPS = ["searching", "searched", "following_references", "followed_references", "extracting", "summarizing", "done"];

const STATE_LABELS: Record<TaskShownState, MessageKey> = {
  pending: "task.pending",
  running: "task.running",
  done: "task.done",
  error: "task.error",
  cancelled: "task.cancelled",
  failed: "task.failed",
  stopped: "task.stopped",
  notStarted: "task.notStarted",
};

/** The approved plan's tasks as a compact list: each with its state (once the run has ended, how it ended
 * for the task), the running ones with their progress and latest step. */
export function TodoList({ view }: { view: RunView }) {
  const { t } = useI18n();
  if (view.todo.length === 0) return null;
  const done = view.todo.filter((task) => task.state === "done").length;
  return (
    <section data-testid="run-todo" aria-labelledby="todo-title" className="panel">
      <h2 id="todo-title">
        {t("todo.title")} <span className="muted">({t("todo.count", { done, total: view.todo.length })})</span>
      </h2>
      <ol className="todo">
        {view.todo.map((task) => {
          const state = taskShownState(task, view);
          const progress = view.progress[task.id];
          const stepIndex = progress ? STEPS.indexOf(progress.step) : -1;
          const fraction = stepIndex < 0 ? 0 : (stepIndex + 1) / STEPS.length;
          return (
            <li key={task.id} className={`task task-${state}`} data-state={state} aria-current={state === "running" ? "step" : undefined}>
              <div className="task-head">
                <span className="task-title">{task.title}</span>
                <span className={`badge state-${state}`}>{t(STATE_LABELS[state])}</span>
              </div>
              {state === "running" && (
                <progress
                  max={100}
                  value={Math.round(fraction * 100)}
                  aria-label={t("todo.progressOf", { title: task.title })}
                />
              )}
              {progress && (state === "running" || state === "done") && (
                <p className="task-step muted">
                  {STEPS.includes(progress.step) ? t(`step.${progress.step}` as MessageKey) : progress.step}
                  {progress.passages !== undefined && ` · ${t("todo.passages", { n: progress.passages })}`}
                  {progress.followed !== undefined && ` · ${t("todo.followed", { n: progress.followed })}`}
                  {progress.evidence !== undefined && ` · ${t("todo.evidence", { n: progress.evidence })}`}
                </p>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
