import { useState, type FormEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { percent } from "../../../shared/ui/format";
import { passageTarget, type PageTarget } from "../../viewer";
import type { ClarificationInterrupt, ClarificationRound, ResumeBody } from "../events/types";

export const END_CLARIFICATION = "/end";

function RoundDetails({
  round,
  onOpenPassage,
}: {
  round: ClarificationRound;
  onOpenPassage?: (target: PageTarget) => void;
}) {
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

/**
 * The clarification chat: earlier rounds with their answers, the pending round's questions with the current
 * understanding, coverage, gaps and what the corpus returned; an answer box, and a button that ends
 * clarification ("/end") so the research starts.
 */
export function ClarificationPanel({
  interrupt,
  history,
  onAnswer,
  pending,
  onOpenPassage,
}: {
  interrupt: ClarificationInterrupt | null;
  history: ClarificationRound[];
  onAnswer: (body: ResumeBody) => void;
  pending: boolean;
  /** Opens a passage the corpus returned on its page, highlighted, in the viewer. */
  onOpenPassage?: (target: PageTarget) => void;
}) {
  const { t } = useI18n();
  const [answer, setAnswer] = useState("");
  const earlier = history.filter((r) => r.round !== interrupt?.round);
  if (!interrupt && earlier.length === 0) return null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = answer.trim();
    if (!text) return;
    onAnswer({ answer: text });
    setAnswer("");
  };

  return (
    <section className="panel" data-testid="clarification" aria-labelledby="clarify-title">
      <h2 id="clarify-title">{t("clarify.title")}</h2>
      <ol className="chat" aria-label={t("clarify.history", { n: earlier.length })}>
        {earlier.map((round) => (
          <li key={round.round}>
            <div className="bubble system">
              <span className="muted small">{t("clarify.round", { n: round.round })}</span>
              <ul>
                {round.questions.map((q) => (
                  <li key={q}>{q}</li>
                ))}
              </ul>
            </div>
            {round.answer && (
              <div className="bubble user">{round.answer === END_CLARIFICATION ? t("clarify.ended") : round.answer}</div>
            )}
          </li>
        ))}
      </ol>
      {interrupt && (
        <div className="round">
          <h3>{t("clarify.round", { n: interrupt.round })}</h3>
          <ul className="questions">
            {interrupt.questions.map((q) => (
              <li key={q}>{q}</li>
            ))}
          </ul>
          <RoundDetails round={interrupt} onOpenPassage={onOpenPassage} />
          {interrupt.error && (
            <p role="alert" className="alert alert-warning">
              {interrupt.error}
            </p>
          )}
          <form onSubmit={submit} className="answer-form">
            <label htmlFor="clarify-answer">{t("clarify.answer")}</label>
            <textarea
              id="clarify-answer"
              rows={3}
              maxLength={4000}
              value={answer}
              disabled={pending}
              onChange={(e) => setAnswer(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) submit(e);
              }}
            />
            <div className="actions">
              <button type="submit" className="primary" disabled={pending || !answer.trim()}>
                {t("clarify.send")}
              </button>
              <button type="button" disabled={pending} onClick={() => onAnswer({ answer: END_CLARIFICATION })}>
                {t("clarify.end")}
              </button>
            </div>
          </form>
        </div>
      )}
    </section>
  );
}
