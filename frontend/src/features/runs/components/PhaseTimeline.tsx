import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { formatDuration } from "../../../shared/ui/format";
import { phaseRows, type PhaseShownState } from "../events/shownStates";
import type { RunView } from "../events/types";

const STATE_LABELS: Record<PhaseShownState, MessageKey | null> = {
  current: "run.phaseRunning",
  waiting: "run.phaseWaiting",
  done: "run.phaseDone",
  todo: null,
  cancelled: "run.phaseCancelled",
  failed: "run.phaseFailed",
  notStarted: "run.phaseNotStarted",
  skipped: "run.phaseSkipped",
};

/** The run's phases in order: done, current (live), waiting for the user (its timer stopped), still to come,
 * or, once the run has ended, where it stopped and what it never reached; with each phase's own time. */
export function PhaseTimeline({ view, now }: { view: RunView; now: number }) {
  const { t } = useI18n();
  return (
    <ol className="timeline" data-testid="run-phase" aria-label={t("run.phases")}>
      {phaseRows(view, now).map(({ phase, state, ms }) => {
        const label = STATE_LABELS[state];
        const live = state === "current" || state === "waiting";
        return (
          <li key={phase} className={`phase phase-${state}`} data-state={state} aria-current={live ? "step" : undefined}>
            <span className="phase-name">{t(`phase.${phase}` as MessageKey)}</span>
            <span className="phase-state">
              {label ? t(label) : ""}
              {ms !== null && ` · ${formatDuration(ms)}`}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
