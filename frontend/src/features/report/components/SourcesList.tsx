import type { Source } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

export function SourcesList({
  sources,
  onCite,
  active,
}: {
  sources: Source[];
  onCite: (n: number) => void;
  active: number | null;
}) {
  const { t } = useI18n();
  if (sources.length === 0) return null;
  return (
    <section aria-labelledby="sources-title">
      <h3 id="sources-title">{t("report.sources")}</h3>
      <ol className="sources">
        {[...sources]
          .sort((a, b) => a.n - b.n)
          .map((s) => (
            <li key={s.n} className={s.support?.flagged ? "flagged" : undefined}>
              <button type="button" className="link" aria-pressed={active === s.n} onClick={() => onCite(s.n)}>
                [{s.n}] {s.document}, {t("common.page", { n: s.page })}
                {s.section ? `, ${s.section}` : ""}
              </button>
              {s.support?.flagged && <span className="badge status-error">{t("report.flagged")}</span>}
              <blockquote>{s.quote}</blockquote>
            </li>
          ))}
      </ol>
    </section>
  );
}
