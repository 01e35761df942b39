import type { ClaimCorrection } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import type { Target } from "../lib/locate";

/**
 * The sentences the checks corrected against their evidence (`checks.corrections`): what the model wrote,
 * what it stated that its cited quotes do not, and whether it was rewritten (the replacement, a button to
 * it where the report shows it) or removed.
 */
export function CorrectionsList({
  corrections,
  canShow,
  onShow,
}: {
  corrections: ClaimCorrection[];
  canShow: (target: Target) => boolean;
  onShow: (target: Target) => void;
}) {
  const { t } = useI18n();
  if (corrections.length === 0) return null;
  return (
    <>
      <h4 id="checks-corrections">{t("checks.corrections", { n: corrections.length })}</h4>
      <ul aria-labelledby="checks-corrections" data-testid="check-corrections">
        {corrections.map((c, i) => {
          const target = { section: c.section, sentence: c.replacement ?? null };
          const replacement = c.replacement ?? "";
          return (
            <li key={i} data-action={c.action}>
              {c.section}: <s>“{c.sentence}”</s> ({t("checks.missing", { missing: c.missing.join(", ") })}){" "}
              {c.action === "removed" || !replacement ? (
                t("checks.removed")
              ) : canShow(target) ? (
                <button type="button" className="link" aria-label={t("checks.showRewritten", { replacement })} onClick={() => onShow(target)}>
                  {t("checks.rewritten", { replacement })}
                </button>
              ) : (
                t("checks.rewritten", { replacement })
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
