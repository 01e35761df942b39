import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import type { SectionProgress } from "../events/types";

const FINISHED = new Set(["done", "refined"]);

/** Report mode: a card per section with its state, its latest grade, its search rounds and refinements. */
export function SectionCards({ sections }: { sections: SectionProgress[] }) {
  const { t } = useI18n();
  if (sections.length === 0) return null;
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
            aria-current={FINISHED.has(s.state) ? undefined : "step"}
          >
            <div className="task-head">
              <span className="task-title">{s.title || s.id}</span>
              <span className="badge">{t(`sectionState.${s.state}` as MessageKey)}</span>
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
