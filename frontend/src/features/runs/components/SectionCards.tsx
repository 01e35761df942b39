import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import type { RunView } from "../events/types";

const FINISHED = new Set(["done", "refined"]);

/** How an unfinished section ended when the run stopped (null: the run goes on, or it finished). */
function stoppedAs(view: RunView): MessageKey | null {
  if (!view.terminal) return null;
  return view.status === "cancelled" ? "task.cancelled" : view.status === "error" ? "task.failed" : "task.stopped";
}

/** Report mode: a card per section with its state (once the run has ended, an unfinished section says how
 * it ended), its latest grade, its search rounds and refinements. */
export function SectionCards({ view }: { view: RunView }) {
  const { t } = useI18n();
  const sections = view.sections;
  if (sections.length === 0) return null;
  const stopped = stoppedAs(view);
  const finished = sections.filter((s) => FINISHED.has(s.state)).length;
  return (
    <section className="panel" aria-labelledby="sections-title">
      <h2 id="sections-title">
        {t("sections.title")} <span className="muted">({t("sections.count", { done: finished, total: sections.length })})</span>
      </h2>
      <ol className="section-cards">
        {sections.map((s) => (
          <li
            key={s.id}
            className={`section-card section-${s.state}`}
            data-testid="section-progress"
            aria-current={FINISHED.has(s.state) || stopped !== null ? undefined : "step"}
          >
            <div className="task-head">
              <span className="task-title">{s.title || s.id}</span>
              <span className="badge">
                {stopped !== null && !FINISHED.has(s.state) ? t(stopped) : t(`sectionState.${s.state}` as MessageKey)}
              </span>
              {s.passed !== null && (
                <span className={`badge ${s.passed ? "status-done" : "status-error"}`}>
                  {s.passed ? t("sections.passed") : t("sections.failed")}
                </span>
              )}
            </div>
            <p className="muted small">
              {t("sections.rounds", { n: s.rounds })}
              {s.evidence !== undefined && ` · ${t("todo.evidence", { n: s.evidence })}`}
              {s.refined > 0 && ` · ${t("sections.refined", { n: s.refined })}`}
            </p>
            {s.state === "refining" && s.instructions && <p className="small">{s.instructions}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}
