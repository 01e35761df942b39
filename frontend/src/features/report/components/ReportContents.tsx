import type { MouseEvent } from "react";
import type { ReportSectionView } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

/** The anchor of a report section on the page. */
export function sectionAnchor(id: string): string {
  return `report-section-${id}`;
}

/** Moves the focus (and so the view) to a report section. The app's routes live in the URL's hash, so
 * following the link's `#anchor` would leave the run page: the click is handled here instead. */
function goTo(event: MouseEvent<HTMLAnchorElement>, id: string): void {
  event.preventDefault();
  document.getElementById(sectionAnchor(id))?.focus();
}

/** A report's table of contents: a link to each section's anchor, in the report's order. */
export function ReportContents({ sections }: { sections: ReportSectionView[] }) {
  const { t } = useI18n();
  return (
    <nav aria-labelledby="report-contents-title" data-testid="report-contents" className="report-contents">
      <h3 id="report-contents-title">{t("report.contents")}</h3>
      <ol>
        {sections.map((s) => (
          <li key={s.id}>
            <a href={`#${sectionAnchor(s.id)}`} onClick={(e) => goTo(e, s.id)}>
              {s.title}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
