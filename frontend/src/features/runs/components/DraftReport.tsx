import { useI18n } from "../../../shared/i18n/i18n";
import { draftNumbers, shownDrafts } from "../events/drafts";
import type { DraftCitation, DraftClaim, RunView } from "../events/types";

type DraftView = Pick<RunView, "drafts" | "streams" | "draftCitations">;

/**
 * What a draft sentence cites: an evidence id the run checked (its `draft_text` citation) is a [n] link that
 * opens its page (a web page's: its address); any other id is plain text saying it is being checked. The model
 * never types a source: a link exists only for evidence the run retrieved.
 */
function DraftCitations({
  ids,
  numbers,
  citations,
  onCite,
}: {
  ids: string[];
  numbers: Map<string, number>;
  citations: Record<string, DraftCitation>;
  onCite: (evidenceId: string) => void;
}) {
  const { t } = useI18n();
  if (ids.length === 0) return <span className="uncited">{t("draft.uncited")}</span>;
  const unchecked = ids.filter((id) => !numbers.has(id)).length;
  return (
    <>
      {[...new Set(ids)].filter((id) => numbers.has(id)).map((id) => {
        const n = numbers.get(id) ?? 0;
        const citation: DraftCitation | undefined = citations[id];
        if (citation?.kind === "web" && citation.url)
          return (
            <a key={id} className="cite web" href={citation.url} target="_blank" rel="noreferrer noopener" aria-label={t("report.citeWeb", { n })}>
              [{n}]
            </a>
          );
        return (
          <button key={id} type="button" className="cite" data-testid="draft-cite" aria-label={t("draft.cite", { n })} onClick={() => onCite(id)}>
            [{n}]
          </button>
        );
      })}
      {unchecked > 0 && (
        <span className="badge draft-sources" title={t("draft.checkingSourcesHint", { n: unchecked })}>
          {t("draft.checkingSources")}
        </span>
      )}
    </>
  );
}

/**
 * The report's sections as the model writes them, in index order, marked as the model's draft: a section
 * being written shows its text so far (`draft_text`, marked `data-testid="draft-text"`), a section written
 * shows its sentences (`draft_section`). The checked report replaces them when it arrives. `active`: the run
 * is still going (otherwise it stopped before the checked report, and the drafts say they were not checked).
 */
export function DraftReport({ view, active, onCite }: { view: DraftView; active: boolean; onCite: (evidenceId: string) => void }) {
  const { t } = useI18n();
  const sections = shownDrafts(view);
  if (sections.length === 0) return null;
  const numbers = draftNumbers(view);
  const sentence = (claim: DraftClaim, i: number, writing: boolean) => (
    <li key={i} className={writing ? "draft-writing" : undefined}>
      {claim.text}
      {writing ? <span className="visually-hidden"> {t("draft.writingSentence")}</span> : " "}
      {!writing && <DraftCitations ids={claim.evidence_ids} numbers={numbers} citations={view.draftCitations} onCite={onCite} />}
    </li>
  );
  return (
    <section className="panel draft-report" data-testid="draft-report" aria-labelledby="draft-title" aria-busy={active}>
      <h2 id="draft-title">{t("draft.title")}</h2>
      <p className={active ? "alert alert-info" : "alert alert-warning"}>{active ? t("draft.notice") : t("draft.stopped")}</p>
      {sections.map((draft) => {
        const streaming = "streaming" in draft;
        return (
          <section key={draft.index} data-testid="draft-section" data-index={draft.index} aria-labelledby={`draft-${draft.index}`}>
            <h3 id={`draft-${draft.index}`}>
              {draft.heading}
              {draft.attempt > 1 && (
                <>
                  {" "}
                  <span className="badge">{t("draft.rewritten")}</span>
                </>
              )}
              {streaming && active && (
                <>
                  {" "}
                  <span className="badge draft-writing-badge">{t("draft.writing")}</span>
                </>
              )}
            </h3>
            {!streaming && draft.truncated && <p className="muted small">{t("draft.truncated")}</p>}
            {draft.claims.length > 0 ? (
              <ul className="draft-claims" data-testid={streaming ? "draft-text" : undefined}>
                {draft.claims.map((claim, i) => sentence(claim, i, streaming && !("complete" in claim && claim.complete)))}
              </ul>
            ) : (
              <p className="muted">{streaming ? t("draft.writing") : t("draft.empty")}</p>
            )}
          </section>
        );
      })}
    </section>
  );
}
