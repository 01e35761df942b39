import { useI18n, type Translate } from "../../../shared/i18n/i18n";
import { percent } from "../../../shared/ui/format";
import { passageTarget, type PageTarget } from "../../viewer";
import type { ClarificationRound, ClarifyActivity } from "../events/types";

export const END_CLARIFICATION = "/end";

/** What clarification is doing, in words ("Searching your documents: 2 of 3 queries, 12 passages found"). */
export function activityText(t: Translate, activity: ClarifyActivity): string {
  switch (activity.step) {
    case "planning":
      return t("clarifyChat.planning", { n: activity.round });
    case "searching":
      return t("clarifyChat.searching", {
        searched: activity.searched,
        queries: activity.queries,
        passages: activity.passages,
      });
    case "analyzing":
      return t("clarifyChat.analyzing", { passages: activity.passages });
    case "anchoring":
      return t("clarifyChat.anchoring");
  }
}

function Speaker({ user }: { user: boolean }) {
  const { t } = useI18n();
  return <p className="speaker">{user ? t("clarifyChat.you") : t("clarifyChat.assistant")}</p>;
}

/** Opens a passage's page in the viewer (the passages under "What the documents returned"). */
export type OpenPassage = (target: PageTarget) => void;

function RoundDetails({ round, onOpenPassage }: { round: ClarificationRound; onOpenPassage?: OpenPassage }) {
  const { t, formatNumber } = useI18n();
  return (
    <>
      <dl className="facts">
        <dt>{t("clarify.understanding")}</dt>
        <dd>{round.understanding}</dd>
        <dt>{t("clarify.coverage")}</dt>
        <dd>
          <meter min={0} max={1} value={round.coverage} aria-label={t("clarify.coverage")} /> {percent(round.coverage)}
        </dd>
        {round.gaps.length > 0 && (
          <>
            <dt>{t("clarify.gaps")}</dt>
            <dd>
              <ul>
                {round.gaps.map((g) => (
                  <li key={g}>{g}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      <details className="corpus">
        <summary>
          {t("clarify.corpus", { passages: round.passages.length, queries: round.queries.length })} ·{" "}
          {t("clarify.dedup", { ratio: percent(round.dedup_ratio) })}
        </summary>
        {round.queries.length > 0 && (
          <>
            <h4>{t("clarify.queries")}</h4>
            <ul>
              {round.queries.map((q) => (
                <li key={q}>{q}</li>
              ))}
            </ul>
          </>
        )}
        <ul className="passages">
          {round.passages.map((p) => {
            const target = onOpenPassage ? passageTarget(p) : null;
            const place = (
              <>
                {p.document}, {t("common.page", { n: p.page })}
                {p.section ? `, ${p.section}` : ""}
              </>
            );
            return (
              <li key={p.chunk_id}>
                <span className="source-line">
                  {target && onOpenPassage ? (
                    <button type="button" className="link" onClick={() => onOpenPassage(target)}>
                      {place}
                    </button>
                  ) : (
                    place
                  )}{" "}
                  · {t("clarify.score", { score: formatNumber(p.score, 2) })}
                </span>
                <blockquote>{p.snippet}</blockquote>
              </li>
            );
          })}
        </ul>
      </details>
    </>
  );
}

/** The system's turn of a round: its questions first, then the current understanding, coverage, gaps and what
 * the documents returned. `open`: the round waits for the answer (its questions carry the class "questions"). */
export function QuestionTurn({
  round,
  open,
  onOpenPassage,
}: {
  round: ClarificationRound;
  open: boolean;
  onOpenPassage?: OpenPassage;
}) {
  const { t } = useI18n();
  return (
    <li className="turn system" data-testid="clarify-turn" data-speaker="assistant">
      <Speaker user={false} />
      <div className="bubble system">
        <h3>{t("clarify.round", { n: round.round })}</h3>
        <ul className={open ? "questions" : undefined}>
          {round.questions.map((q) => (
            <li key={q}>{q}</li>
          ))}
        </ul>
        <RoundDetails round={round} onOpenPassage={onOpenPassage} />
      </div>
    </li>
  );
}

/** The user's turn: the answer, or "enough, start the research" for "/end". `sending`: not on record yet. */
export function AnswerTurn({ answer, sending }: { answer: string; sending: boolean }) {
  const { t } = useI18n();
  const ended = answer.trim().toLowerCase() === END_CLARIFICATION;
  return (
    <li className="turn user" data-testid="clarify-turn" data-speaker="user">
      <Speaker user />
      <div className={ended ? "bubble user ended" : "bubble user"}>
        <p>{ended ? t("clarifyChat.ended") : answer}</p>
        {sending && <p className="muted small">{t("clarifyChat.sending")}</p>}
      </div>
    </li>
  );
}

/** The system at work between the user's answer and its next questions (or the plan). */
export function ActivityTurn({ activity }: { activity: ClarifyActivity }) {
  const { t } = useI18n();
  const searching = activity.step === "searching" && activity.queries > 0;
  return (
    <li className="turn system activity" data-testid="clarify-activity" data-step={activity.step}>
      <Speaker user={false} />
      <div className="bubble system">
        <p>
          <span className="working" aria-hidden="true" /> {activityText(t, activity)}
        </p>
        {searching && (
          <progress
            max={activity.queries}
            value={activity.searched}
            aria-label={t("clarifyChat.searchProgress")}
          />
        )}
      </div>
    </li>
  );
}
