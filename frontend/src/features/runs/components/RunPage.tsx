import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { HealthBanner } from "../../health/components/HealthBanner";
import type { PageTarget } from "../../viewer";
import { useCancelRun } from "../api/useCancelRun";
import { useDeleteRun } from "../api/useDeleteRun";
import { useResumeRun } from "../api/useResumeRun";
import { useRun } from "../api/useRun";
import { useRunEvents } from "../api/useRunEvents";
import type { ResumeBody, RunEvent } from "../events/types";
import { ClarificationPanel } from "./ClarificationPanel";
import { DraftReport } from "./DraftReport";
import { PhaseTimeline } from "./PhaseTimeline";
import { OutlineForm } from "./OutlineForm";
import { PlanForm } from "./PlanForm";
import { ReferenceGraph } from "./ReferenceGraph";
import { isActive, RunHeader } from "./RunHeader";
import { SectionCards } from "./SectionCards";
import { TodoList } from "./TodoList";

const CitationViewer = lazy(() => import("../../viewer/components/CitationViewer"));
const DocumentPanel = lazy(() => import("../../viewer/components/DocumentPanel"));
// The Markdown renderer is loaded with the first report shown.
const ReportView = lazy(() => import("../../report/components/ReportView"));

/** Refreshes the run's detail (LLM calls, todo) at most every `ms` while events arrive. */
function useThrottledRefresh(runId: string, ms: number) {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return useCallback(
    (event: RunEvent) => {
      const urgent = event.type === "status" || event.type === "done" || event.type === "error" || event.type === "report";
      if (urgent) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) });
        return;
      }
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) });
      }, ms);
    },
    [queryClient, runId, ms],
  );
}

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}

function RunView({ runId }: { runId: string }) {
  const { t } = useI18n();
  const [params, setParams] = useSearchParams();
  const detail = useRun(runId);
  const refresh = useThrottledRefresh(runId, 1000);
  const gone = detail.error instanceof ApiError && detail.error.status === 404;
  const { log, state, reconnect } = useRunEvents(runId, refresh, !gone);
  const view = log.view;
  const resume = useResumeRun(runId);
  const cancel = useCancelRun(runId);
  const remove = useDeleteRun();
  const navigate = useNavigate();
  const status = view.status ?? detail.data?.run.status ?? null;
  const now = useNow(isActive(status));

  // A run resumed elsewhere (another tab, the CLI) has events past the end of the closed stream: follow them.
  const lastEvent = detail.data?.last_event ?? 0;
  useEffect(() => {
    if (state === "closed" && view.terminal && lastEvent > view.lastSeq) reconnect();
  }, [state, view.terminal, lastEvent, view.lastSeq, reconnect]);

  const answer = (body: ResumeBody) => resume.mutate(body, { onSuccess: () => reconnect() });
  const report = view.report ?? detail.data?.result ?? null;
  // A stopped run (cancelled, error) that was waiting for input still waits for that answer: the server
  // keeps the interrupt, and answering it continues the run ({} is refused then).
  const stopped = status === "cancelled" || status === "error";
  const pendingOnServer = (detail.data?.interrupt ?? null) as typeof view.interrupt;
  const interrupt = view.lastSeq > 0 && !stopped ? view.interrupt : pendingOnServer;
  const cite = Number(params.get("cite") ?? "");
  // a page opened from a graph node or a passage the corpus returned (a citation replaces it)
  const [opened, setOpened] = useState<PageTarget | null>(null);
  const openCitation = (n: number | null) => {
    if (n !== null) setOpened(null);
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (n === null) next.delete("cite");
        else next.set("cite", String(n));
        return next;
      },
      { replace: false },
    );
  };
  const openPage = (target: PageTarget) => {
    if (params.has("cite")) openCitation(null);
    setOpened(target);
  };
  // Web sources have no PDF page: the report links them to their page instead of opening the viewer.
  const source = useMemo(
    () => report?.sources?.find((s) => s.n === cite && s.kind !== "web") ?? null,
    [report, cite],
  );

  if (detail.error) return <ErrorAlert error={detail.error} title={t("run.notFound")} />;
  if (!detail.data) return <p>{t("common.loading")}</p>;

  return (
    <div className={source || opened ? "run-layout with-viewer" : "run-layout"}>
      <div className="run-main">
        <RunHeader
          detail={detail.data}
          view={view}
          now={now}
          busy={cancel.isPending || resume.isPending || remove.isPending}
          onDelete={() => remove.mutate(runId, { onSuccess: () => navigate("/runs") })}
          onCancel={() => cancel.mutate()}
          onRetry={interrupt === null ? () => answer({}) : null}
        />
        <p className="muted small" aria-live="polite">
          {state === "reconnecting" ? t("run.reconnecting") : state === "connecting" ? t("run.connecting") : ""}
        </p>
        <ErrorAlert error={cancel.error ?? resume.error ?? remove.error} />
        {stopped && interrupt !== null && <p className="alert alert-info">{t("run.answerToContinue")}</p>}
        <PhaseTimeline view={view} now={now} />
        {view.error && (
          <div role="alert" className="alert alert-error" data-testid="run-error">
            <strong>{t("run.failed")}</strong>
            <p>{view.error}</p>
            <p className="hint">{t("run.retryHint")}</p>
            <HealthBanner always />
          </div>
        )}
        {view.assessment && !view.assessment.answerable && (
          <div className="alert alert-warning">
            <strong>{t("run.unanswerable")}</strong>
            <p>{view.assessment.reason}</p>
          </div>
        )}
        <ClarificationPanel
          key={interrupt?.kind === "clarification" ? `round-${interrupt.round}` : "none"}
          interrupt={interrupt?.kind === "clarification" ? interrupt : null}
          history={view.clarifications}
          onAnswer={answer}
          pending={resume.isPending}
          onOpenPassage={openPage}
        />
        {interrupt?.kind === "plan" && (
          <PlanForm key={`plan-${interrupt.error ?? ""}-${interrupt.tasks.map((task) => task.id).join(",")}`} interrupt={interrupt} onSubmit={answer} pending={resume.isPending} />
        )}
        {interrupt?.kind === "outline" && (
          <OutlineForm
            key={`outline-${interrupt.round}-${interrupt.error ?? ""}-${interrupt.sections.map((s) => s.id).join(",")}`}
            interrupt={interrupt}
            onSubmit={answer}
            pending={resume.isPending}
          />
        )}
        <SectionCards sections={view.sections} />
        <TodoList view={view} />
        <ReferenceGraph references={view.references} onOpenPage={openPage} />
        {view.warnings.length > 0 && (
          <details className="panel">
            <summary>{t("run.warnings", { n: view.warnings.length })}</summary>
            <ul>
              {view.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </details>
        )}
        {!report && <DraftReport drafts={view.drafts} active={isActive(status)} />}
        {report && report.report_markdown && (
          <Suspense fallback={<p>{t("common.loading")}</p>}>
            <ReportView runId={runId} result={report} onCite={openCitation} active={cite} />
          </Suspense>
        )}
      </div>
      {source && (
        <Suspense fallback={<aside className="viewer">{t("common.loading")}</aside>}>
          <CitationViewer source={source} onClose={() => openCitation(null)} />
        </Suspense>
      )}
      {!source && opened && (
        <Suspense fallback={<aside className="viewer">{t("common.loading")}</aside>}>
          <DocumentPanel target={opened} onClose={() => setOpened(null)} />
        </Suspense>
      )}
    </div>
  );
}

export function RunPage() {
  const { runId = "" } = useParams();
  return <RunView key={runId} runId={runId} />;
}
