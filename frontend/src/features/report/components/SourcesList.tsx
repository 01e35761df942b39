import type { Source } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

/** The report's sources by number: a document's opens the citation viewer, a web page's is a link marked as such. */
export function SourcesList({
  sources,
  onCite,
  active,
}: {
  sources: Source[];
  onCite: (n: number) => void;
  active: number | null;
}) {
  const { t, formatNumber } = useI18n();
  if (sources.length === 0) return null;
  return (
    <section aria-labelledby="sources-title">
      <h3 id="sources-title">{t("report.sources")}</h3>
      <ol className="sources">
        {[...sources]
          .sort((a, b) => a.n - b.n)
          .map((s) => (
            <li key={s.n} className={s.support?.flagged ? "flagged" : undefined}>
              {s.kind === "web" && s.url ? (
                <>
                  <a href={s.url} target="_blank" rel="noreferrer noopener">
                    [{s.n}] {s.title || s.url}
                  </a>{" "}
                  <span className="badge">{t("report.webSource")}</span>
                </>
              ) : (
                <button type="button" className="link" aria-pressed={active === s.n} onClick={() => onCite(s.n)}>
                  [{s.n}] {s.document}, {t("common.page", { n: s.page })}
                  {s.section ? `, ${s.section}` : ""}
                </button>
              )}
              {s.support?.flagged && <span className="badge status-error">{t("report.flagged")}</span>}
              {s.ocr_confidence != null && (
                <span className={s.ocr_low_confidence ? "badge status-warning" : "badge"} data-testid="ocr-badge">
                  {t(s.ocr_low_confidence ? "ocr.sourceLow" : "ocr.source", { confidence: formatNumber(s.ocr_confidence, 0) })}
                </span>
              )}
              <blockquote>{s.quote}</blockquote>
            </li>
          ))}
      </ol>
    </section>
  );
}
