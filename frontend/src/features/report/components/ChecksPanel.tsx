import type { ReactNode } from "react";
import type { QualityProblem, ReportChecks } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { percent } from "../../../shared/ui/format";
import type { Target } from "../lib/locate";
import { CorrectionsList } from "./CorrectionsList";

/** One problem: its kind, where it is (a button that moves there when the report shows it), its detail. */
function Problem({ problem, onShow }: { problem: QualityProblem; onShow: ((target: Target) => void) | null }) {
  const { t } = useI18n();
  const where = [problem.section, problem.sentence ? `“${problem.sentence}”` : null].filter(Boolean).join(": ");
  return (
    <li data-kind={problem.kind}>
      <span className="badge status-error">{t(`checks.kind.${problem.kind}` as MessageKey)}</span>{" "}
      {!where ? (
        <span className="muted">{t("checks.wholeReport")}</span>
      ) : onShow ? (
        <button type="button" className="link" aria-label={t("checks.show", { where })} onClick={() => onShow(problem)}>
          {where}
        </button>
      ) : (
        <>
          {where} <span className="muted">({t("checks.notShown")})</span>
        </>
      )}
      : {problem.detail}
    </li>
  );
}

/** The measured figures of the checks and what they found. */
function Measured({
  checks,
  canShow,
  onShow,
}: {
  checks: ReportChecks;
  canShow: (target: Target) => boolean;
  onShow: (target: Target) => void;
}) {
  const { t, formatNumber } = useI18n();
  const problems = checks.problems ?? [];
  const figures: Array<[MessageKey, string]> = [
    ["checks.sentencesWritten", formatNumber(checks.sentences_written ?? 0)],
    ["checks.repeatedShare", percent(checks.repeated_share ?? 0)],
    ["checks.placeholders", formatNumber(checks.placeholders ?? 0)],
    ["checks.citedShare", percent(checks.cited_share ?? 1)],
    [
      "checks.sections",
      `${checks.sections_written ?? 0} / ${checks.sections_assembled ?? 0} / ${checks.tasks_with_evidence ?? 0}`,
    ],
    ["checks.language", checks.language_ok === false ? t("checks.languageWrong") : t("checks.languageOk")],
  ];
  if (checks.flagged_share != null) figures.push(["checks.flaggedShare", percent(checks.flagged_share)]);
  if (checks.contradictions) figures.push(["checks.contradictions", formatNumber(checks.contradictions)]);
  return (
    <>
      <dl className="figures">
        {figures.map(([key, value]) => (
          <div key={key}>
            <dt>{t(key)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h4 id="checks-problems">{t("checks.problems", { n: problems.length })}</h4>
      {problems.length > 0 ? (
        <ul aria-labelledby="checks-problems" data-testid="check-problems">
          {problems.map((problem, i) => (
            <Problem key={i} problem={problem} onShow={canShow(problem) ? onShow : null} />
          ))}
        </ul>
      ) : (
        <p className="muted">{t("checks.noProblems")}</p>
      )}
      <CorrectionsList corrections={checks.corrections ?? []} canShow={canShow} onShow={onShow} />
    </>
  );
}

/**
 * The "Checks" panel: the report's measured checks (`result.checks`: passed or not, the figures, the
 * problems, each pointing at its section and sentence; `canShow` says whether the report shows a problem's
 * place, `onShow` moves there), then `children` (what the guards changed, the evidence, the tokens). A
 * result without checks (report mode) shows the children alone.
 */
export function ChecksPanel({
  checks,
  canShow,
  onShow,
  children,
}: {
  checks: ReportChecks | null;
  canShow: (target: Target) => boolean;
  onShow: (target: Target) => void;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const passed = checks ? checks.passed !== false : null;
  return (
    <section aria-labelledby="checks-title" data-testid="checks" data-passed={passed ?? undefined}>
      <h3 id="checks-title">
        {t("checks.title")}
        {passed !== null && (
          <>
            {" "}
            <span className={passed ? "badge status-done" : "badge status-error"}>
              {passed ? t("checks.passed") : t("checks.failed")}
            </span>
          </>
        )}
      </h3>
      {checks && <Measured checks={checks} canShow={canShow} onShow={onShow} />}
      {children}
    </section>
  );
}
