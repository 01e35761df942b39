import type { CitationStats, QualityScores } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";

const SCORES = ["factual_accuracy", "semantic_validity", "structure", "citation_correctness", "query_relevance"] as const;

export function QualityPanel({ quality, stats }: { quality: QualityScores; stats: CitationStats }) {
  const { t, formatNumber } = useI18n();
  return (
    <section aria-labelledby="quality-title" data-testid="quality">
      <h3 id="quality-title">
        {t("quality.title")}: {formatNumber(quality.overall ?? 0, 0)} / 100{" "}
        <span className={quality.passed ? "badge status-done" : "badge status-error"}>
          {quality.passed ? t("quality.passed") : t("quality.failed")}
        </span>
        {quality.remediated && <span className="badge">{t("quality.remediated")}</span>}
      </h3>
      <dl className="scores">
        {SCORES.map((key) => (
          <div key={key}>
            <dt>{t(`quality.${key}` as MessageKey)}</dt>
            <dd>
              <meter min={0} max={100} low={50} high={80} optimum={100} value={quality[key]} aria-label={t(`quality.${key}` as MessageKey)} />{" "}
              {quality[key]}
            </dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        {t("quality.citations", {
          cited: stats.cited_sentences ?? 0,
          sentences: stats.sentences ?? 0,
          flagged: stats.flagged_citations ?? 0,
        })}
      </p>
      {quality.issues && quality.issues.length > 0 && (
        <ul>
          {quality.issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
