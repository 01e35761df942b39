import { useRef, useState } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { ClarificationInterrupt, ClarificationRound, ClarifyActivity, ResumeBody } from "../events/types";
import { ClarificationComposer } from "./ClarificationComposer";
import {
  ActivityTurn,
  activityText,
  AnswerTurn,
  END_CLARIFICATION,
  type OpenPassage,
  QuestionTurn,
} from "./ClarificationTurns";

export { END_CLARIFICATION } from "./ClarificationTurns";

interface Sent {
  round: number;
  answer: string;
}

function isEnd(answer: string | null | undefined): boolean {
  return (answer ?? "").trim().toLowerCase() === END_CLARIFICATION;
}

/** The rounds on record, and the pending one when only the interrupt has it (a stopped run's, read from the
 * run's detail). */
function roundsOf(history: ClarificationRound[], interrupt: ClarificationInterrupt | null): ClarificationRound[] {
  if (!interrupt || history.some((r) => r.round === interrupt.round)) return history;
  return [...history, interrupt].sort((a, b) => a.round - b.round);
}

/**
 * Clarification as a chat, folded from the run's events (so a reload or a second tab shows the same): each
 * round's questions with the current understanding, coverage, gaps and what the documents returned; the
 * user's answers, "enough, start the research" included, as the user's turns; what the system is doing while
 * the user waits (writing searches, searching the documents query by query, reading the passages, fixing the
 * research question). New questions and activity are announced politely; the answer field keeps the focus
 * after sending.
 *
 * `activity`: the latest clarification progress (null while waiting for the user or once over);
 * `clarifying`: the run is active in its clarification phase (the answer field stays between rounds);
 * `failed`: the last answer could not be sent (it goes back into the answer field);
 * `onOpenPassage`: opens a passage the documents returned on its page (the viewer).
 */
export function ClarificationPanel({
  interrupt,
  history,
  activity,
  clarifying,
  onAnswer,
  pending,
  failed,
  onOpenPassage,
}: {
  interrupt: ClarificationInterrupt | null;
  history: ClarificationRound[];
  activity: ClarifyActivity | null;
  clarifying: boolean;
  onAnswer: (body: ResumeBody) => void;
  pending: boolean;
  failed: boolean;
  onOpenPassage?: OpenPassage;
}) {
  const { t } = useI18n();
  const [answer, setAnswer] = useState("");
  const [sent, setSent] = useState<Sent | null>(null);
  const [failedBefore, setFailedBefore] = useState(failed);
  const field = useRef<HTMLTextAreaElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  if (failed !== failedBefore) {
    setFailedBefore(failed);
    if (failed && sent) {
      if (!isEnd(sent.answer)) setAnswer(sent.answer);
      setSent(null);
    }
  }

  const rounds = roundsOf(history, interrupt);
  const sending = sent && !rounds.some((r) => r.round === sent.round && r.answer) ? sent : null;
  const open = interrupt && sending?.round !== interrupt.round ? interrupt : null;
  const ended = rounds.some((r) => isEnd(r.answer)) || isEnd(sending?.answer);
  const working = open === null && activity !== null ? activity : null;
  const composing = rounds.length > 0 && !ended && activity?.step !== "anchoring" && (open !== null || clarifying);
  if (rounds.length === 0 && working === null && open === null) return null;

  const send = (text: string) => {
    if (!open || pending) return;
    setSent({ round: open.round, answer: text });
    onAnswer({ answer: text });
  };
  const sendAnswer = () => {
    const text = answer.trim();
    if (!text) return;
    send(text);
    setAnswer("");
    field.current?.focus();
  };
  const end = () => {
    send(END_CLARIFICATION);
    heading.current?.focus();
  };

  const announcement = open
    ? t("clarifyChat.newQuestions", { n: open.round, count: open.questions.length })
    : working
      ? working.step === "searching"
        ? t("clarifyChat.searchingShort")
        : activityText(t, working)
      : "";

  return (
    <section className="panel clarify-chat" data-testid="clarification" aria-labelledby="clarify-title">
      <h2 id="clarify-title" ref={heading} tabIndex={-1}>
        {t("clarify.title")}
      </h2>
      <ol className="chat" aria-label={t("clarifyChat.conversation")}>
        {rounds.map((round) => (
          <RoundTurns key={round.round} round={round} open={open?.round === round.round} onOpenPassage={onOpenPassage} />
        ))}
        {sending && <AnswerTurn answer={sending.answer} sending />}
        {working && <ActivityTurn activity={working} />}
      </ol>
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="clarify-announcement">
        {announcement}
      </p>
      {open?.error && (
        <p role="alert" className="alert alert-warning">
          {open.error}
        </p>
      )}
      {composing && (
        <ClarificationComposer
          ref={field}
          value={answer}
          onChange={setAnswer}
          canSend={open !== null && !pending}
          onSend={sendAnswer}
          onEnd={end}
        />
      )}
    </section>
  );
}

function RoundTurns({ round, open, onOpenPassage }: { round: ClarificationRound; open: boolean; onOpenPassage?: OpenPassage }) {
  return (
    <>
      <QuestionTurn round={round} open={open} onOpenPassage={onOpenPassage} />
      {round.answer && <AnswerTurn answer={round.answer} sending={false} />}
    </>
  );
}
