import { useState } from "react";
import type { MessageKey } from "../../../shared/i18n/en";
import { useI18n, type Translate } from "../../../shared/i18n/i18n";
import type { Interrupt, RunView } from "../events/types";

/** What is worth saying of the run now: its form waiting for the user, else how it ended, else its phase. */
function messageOf(view: RunView, interrupt: Interrupt | null, t: Translate): string {
  if (interrupt?.kind === "clarification")
    return t("run.announceQuestions", { round: interrupt.round, questions: interrupt.questions.join(" ") });
  if (interrupt?.kind === "plan") return t("run.announcePlan");
  if (interrupt?.kind === "outline") return t("run.announceOutline");
  if (view.terminal && view.status !== null) return t("run.announceEnd", { status: t(`status.${view.status}` as MessageKey) });
  if (view.phase !== null && view.phase !== "done") return t("run.announcePhase", { phase: t(`phase.${view.phase}` as MessageKey) });
  return "";
}

/** A polite live region that says each new phase, each new round of questions, a form to fill in and the
 * run's end, once each (the region is in the page from the start, so a change is read out). */
export function RunAnnouncer({ view, interrupt }: { view: RunView; interrupt: Interrupt | null }) {
  const { t } = useI18n();
  const next = messageOf(view, interrupt, t);
  // the last thing worth saying stays (a run between phases has nothing new to say)
  const [said, setSaid] = useState("");
  if (next && next !== said) setSaid(next);
  return (
    <p className="visually-hidden" role="status" aria-live="polite" data-testid="run-announcer">
      {said}
    </p>
  );
}
