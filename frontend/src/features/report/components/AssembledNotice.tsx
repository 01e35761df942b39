import type { AssembledSection } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

/**
 * Why some sections read as lists of findings: the model's text for them was unusable, so the report
 * assembled them from the run's verified findings (the Markdown has the note under each heading). Each
 * section's name moves to it.
 */
export function AssembledNotice({
  sections,
  canShow,
  onShow,
}: {
  sections: AssembledSection[];
  /** Whether the report shows the section with this heading. */
  canShow: (heading: string) => boolean;
  /** Moves to the section with this heading. */
  onShow: (heading: string) => void;
}) {
  const { t } = useI18n();
  if (sections.length === 0) return null;
  return (
    <div className="alert alert-info" data-testid="assembled-sections">
      <strong>{t("report.assembledTitle")}</strong>
      <p>{t("report.assembledHelp")}</p>
      <ul>
        {sections.map((s) => (
          <li key={`${s.task_id}-${s.heading}`}>
            {canShow(s.heading) ? (
              <button type="button" className="link" onClick={() => onShow(s.heading)}>
                {s.heading}
              </button>
            ) : (
              s.heading
            )}
            : {s.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
