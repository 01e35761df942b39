import type { TokenUse } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";

/** The run's prompt and output tokens (`result.llm_tokens`): the total, and by kind of call in a details
 * element. Nothing when the run counted none. */
export function TokenUsage({ tokens }: { tokens: Record<string, TokenUse> }) {
  const { t, formatNumber } = useI18n();
  const total = tokens.total;
  const kinds = Object.entries(tokens)
    .filter(([kind]) => kind !== "total")
    .sort(([a], [b]) => a.localeCompare(b));
  if (!total && kinds.length === 0) return null;
  const sum = total ?? {
    prompt: kinds.reduce((n, [, use]) => n + (use.prompt ?? 0), 0),
    output: kinds.reduce((n, [, use]) => n + (use.output ?? 0), 0),
  };
  return (
    <section aria-labelledby="tokens-title" data-testid="tokens">
      <h4 id="tokens-title">{t("tokens.title")}</h4>
      <p>{t("tokens.total", { prompt: formatNumber(sum.prompt ?? 0), output: formatNumber(sum.output ?? 0) })}</p>
      {kinds.length > 0 && (
        <details>
          <summary>{t("tokens.byKind")}</summary>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t("tokens.kind")}</th>
                <th scope="col">{t("tokens.prompt")}</th>
                <th scope="col">{t("tokens.output")}</th>
              </tr>
            </thead>
            <tbody>
              {kinds.map(([kind, use]) => (
                <tr key={kind}>
                  <th scope="row">{kind}</th>
                  <td>{formatNumber(use.prompt ?? 0)}</td>
                  <td>{formatNumber(use.output ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
