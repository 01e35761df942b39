import type { EvidenceView } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

function Where({ e }: { e: EvidenceView }) {
  const { t } = useI18n();
  return (
    <>
      {e.document}, {t("common.page", { n: e.page })}
      {e.section ? `, ${e.section}` : ""}
    </>
  );
}

/**
 * All verified evidence of the run (`result.evidence`): what the report cites, by its number (opening the
 * source), and what it left out, each with the finding and its verbatim quote.
 */
export function EvidenceList({
  evidence,
  onCite,
  active,
}: {
  evidence: EvidenceView[];
  onCite: (n: number) => void;
  active: number | null;
}) {
  const { t } = useI18n();
  if (evidence.length === 0) return null;
  const cited = evidence.filter((e) => e.source != null).sort((a, b) => a.source! - b.source!);
  const left = evidence.filter((e) => e.source == null);
  return (
    <details className="evidence" data-testid="evidence">
      <summary>{t("evidence.title")}</summary>
      <h5 id="evidence-cited">{t("evidence.cited", { n: cited.length })}</h5>
      <ul aria-labelledby="evidence-cited" data-testid="evidence-cited">
        {cited.map((e) => (
          <li key={e.id}>
            <button type="button" className="link" aria-pressed={active === e.source} onClick={() => onCite(e.source!)}>
              [{e.source}] <Where e={e} />
            </button>
            <p>{e.fact}</p>
            <blockquote>{e.quote}</blockquote>
          </li>
        ))}
      </ul>
      <h5 id="evidence-left">{t("evidence.uncited", { n: left.length })}</h5>
      <ul aria-labelledby="evidence-left" data-testid="evidence-uncited">
        {left.map((e) => (
          <li key={e.id}>
            <span className="muted">
              <Where e={e} />
            </span>
            <p>{e.fact}</p>
            <blockquote>{e.quote}</blockquote>
          </li>
        ))}
      </ul>
    </details>
  );
}
