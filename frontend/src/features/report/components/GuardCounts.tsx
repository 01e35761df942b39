import type { TextGuards } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";

/** What the deterministic guards did to the model's text (`result.text_guards`), as counts. */
export function GuardCounts({ guards }: { guards: TextGuards }) {
  const { t, formatNumber } = useI18n();
  const rows: Array<[MessageKey, number]> = [
    ["guards.repeats", (guards.repeated_claims_dropped ?? 0) + (guards.repeated_sentences_collapsed ?? 0)],
    ["guards.placeholders", guards.placeholder_claims_dropped ?? 0],
    ["guards.headings", guards.headings_replaced ?? 0],
    ["guards.sectionsDropped", guards.sections_dropped ?? 0],
    ["guards.uncited", guards.uncited_claims ?? 0],
  ];
  return (
    <section aria-labelledby="guards-title" data-testid="guards">
      <h4 id="guards-title">{t("guards.title")}</h4>
      <dl className="figures">
        {rows.map(([key, n]) => (
          <div key={key}>
            <dt>{t(key)}</dt>
            <dd>{formatNumber(n)}</dd>
          </div>
        ))}
      </dl>
      {guards.title_replaced && <p className="muted">{t("guards.titleReplaced")}</p>}
    </section>
  );
}
