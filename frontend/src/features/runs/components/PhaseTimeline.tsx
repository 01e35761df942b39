import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { formatDuration } from "../../../shared/ui/format";
import { PHASES, REPORT_PHASES, type PhaseSpan, type RunView } from "../events/types";

function spanOf(phases: PhaseSpan[], phase: string): PhaseSpan | undefined {
  return [...phases].reverse().find((s) => s.phase === phase);
}

/** The run's phases in order: done, current (live) or still to come, with how long each took. */
export function PhaseTimeline({ view, now }: { view: RunView; now: number }) {
  const { t } = useI18n();
  const report = view.phases.some((s) => s.phase !== "done" && (REPORT_PHASES as readonly string[]).includes(s.phase));
  const visible = (report ? REPORT_PHASES : PHASES).filter((p) => p !== "done");
  return (
    <ol className="timeline" data-testid="run-phase" aria-label={t("run.phases")}>
      {visible.map((phase) => {
        const span = spanOf(view.phases, phase);
        const current = view.phase === phase && !view.terminal && span?.endedAt === null;
        const state = current ? "current" : span ? "done" : "todo";
        const ms = span ? (span.endedAt ? Date.parse(span.endedAt) : now) - Date.parse(span.startedAt) : 0;
        return (
          <li key={phase} className={`phase phase-${state}`} aria-current={current ? "step" : undefined}>
            <span className="phase-name">{t(`phase.${phase}` as MessageKey)}</span>
            <span className="phase-state">
              {state === "current" ? t("run.phaseRunning") : state === "done" ? t("run.phaseDone") : ""}
              {span && ` · ${formatDuration(ms)}`}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
