import { useI18n } from "../../../shared/i18n/i18n";
import type { ChainLink } from "../lib/target";

/**
 * How the run reached the passage: each step a link that opens its page in the viewer, the mention that
 * led on to the next, and the search that found the first where it is known.
 */
export function ReferenceChain({
  chain,
  current,
  onOpen,
}: {
  chain: ChainLink[];
  current: { document: string; page: number };
  onOpen: (place: { document: string; page: number }) => void;
}) {
  const { t } = useI18n();
  return (
    <section aria-labelledby="chain-title" className="viewer-chain">
      <h3 id="chain-title">{t("viewer.chain")}</h3>
      <ol className="chain" data-testid="reference-chain">
        {chain.map((step, i) => {
          const here = step.document === current.document && step.page === current.page;
          return (
            <li key={`${step.chunk_id}-${i}`}>
              <button
                type="button"
                className="link"
                aria-current={here ? "location" : undefined}
                onClick={() => onOpen({ document: step.document, page: step.page })}
              >
                {step.document}, {t("common.page", { n: step.page })}
                {step.section ? `, ${step.section}` : ""}
              </button>
              {i === 0 && step.query && <span className="muted"> — {t("viewer.foundBy", { query: step.query })}</span>}
              {step.mention && i < chain.length - 1 && (
                <span className="muted"> — {t("viewer.via", { mention: step.mention })}</span>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
