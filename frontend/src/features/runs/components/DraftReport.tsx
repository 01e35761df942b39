import { useI18n } from "../../../shared/i18n/i18n";
import type { DraftClaim, DraftSection } from "../events/types";

/**
 * A draft sentence: its text, then what it cites. The events carry evidence ids, which only the final
 * report maps to documents and pages (its sources and `evidence`): until then a cited sentence says its
 * sources are being checked.
 */
function DraftSentence({ claim }: { claim: DraftClaim }) {
  const { t } = useI18n();
  const n = claim.evidence_ids.length;
  return (
    <li>
      {claim.text}{" "}
      {n > 0 ? (
        <span className="badge draft-sources" title={t("draft.checkingSourcesHint", { n })}>
          {t("draft.checkingSources")}
        </span>
      ) : (
        <span className="uncited">{t("draft.uncited")}</span>
      )}
    </li>
  );
}

/**
 * The report's sections as the model writes them (`draft_section` events), in index order, marked as a
 * draft: the checked report replaces them when it arrives. `active`: the run is still going (otherwise it
 * stopped before the checked report, and the drafts say they were not checked).
 */
export function DraftReport({ drafts, active }: { drafts: DraftSection[]; active: boolean }) {
  const { t } = useI18n();
  if (drafts.length === 0) return null;
  return (
    <section className="panel draft-report" data-testid="draft-report" aria-labelledby="draft-title" aria-busy={active}>
      <h2 id="draft-title">{t("draft.title")}</h2>
      <p className={active ? "alert alert-info" : "alert alert-warning"}>{active ? t("draft.notice") : t("draft.stopped")}</p>
      {drafts.map((draft) => (
        <section key={draft.index} data-testid="draft-section" data-index={draft.index} aria-labelledby={`draft-${draft.index}`}>
          <h3 id={`draft-${draft.index}`}>
            {draft.heading}
            {draft.attempt > 1 && (
              <>
                {" "}
                <span className="badge">{t("draft.rewritten")}</span>
              </>
            )}
          </h3>
          {draft.truncated && <p className="muted small">{t("draft.truncated")}</p>}
          {draft.claims.length > 0 ? (
            <ul className="draft-claims">
              {draft.claims.map((claim, i) => (
                <DraftSentence key={i} claim={claim} />
              ))}
            </ul>
          ) : (
            <p className="muted">{t("draft.empty")}</p>
          )}
        </section>
      ))}
    </section>
  );
}
