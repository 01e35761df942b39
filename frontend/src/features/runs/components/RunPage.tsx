import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError } from "../../../shared/api/errors";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { HealthBanner } from "../../health/components/HealthBanner";
import type { PageTarget } from "../../viewer";
import { useCancelRun } from "../api/useCancelRun";
import { useDeleteRun } from "../api/useDeleteRun";
import { useResumeRun } from "../api/useResumeRun";
import { useRun } from "../api/useRun";
import { useRunEvents } from "../api/useRunEvents";
import { draftSource } from "../events/drafts";
import type { ResumeBody } from "../events/types";
import { ClarificationPanel } from "./ClarificationPanel";
import { DraftReport } from "./DraftReport";
import { OutlineForm } from "./OutlineForm";
import { PlanForm } from "./PlanForm";
import { withRunWarnings } from "../lib/runWarnings";
import { RunAnnouncer } from "./RunAnnouncer";
import { isActive, RunHeader } from "./RunHeader";
import { Collapsed, RunProgress } from "./RunProgress";
import { useCitationFocus, useNow, usePolledDetail, useThrottledRefresh } from "./runPageHooks";
import { TabList, TabPanel } from "./ViewTabs";

const CitationViewer = lazy(() => import("../../viewer/components/CitationViewer"));
const DocumentPanel = lazy(() => import("../../viewer/components/DocumentPanel"));
// The Markdown renderer is loaded with the first report shown.
const ReportView = lazy(() => import("../../report/components/ReportView"));

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
  const lastEvent = detail.data?.last_event ?? 0;
  // While the stream replays events the detail already covers, the detail's status is the newer one: a
  // finished run opened again must not look running until its old events have all arrived.
  const replaying = detail.data !== undefined && view.lastSeq < lastEvent;
  const status = (replaying ? detail.data?.run.status : view.status) ?? view.status ?? detail.data?.run.status ?? null;
  const now = useNow(isActive(status));

  // A run resumed elsewhere (another tab, the CLI) has events past the end of the closed stream: follow them.
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
  const citeParam = params.get("cite");
  const cite = citeParam === null ? null : Number(citeParam);
  // a citation of the streamed draft: ?evidence=ID (an id the run checked), until the report has its number
  const evidence = params.get("evidence");
  const rememberOpener = useCitationFocus(cite ?? evidence);
  const [tab, setTab] = useState<"report" | "how">("report");
  // a page opened from a graph node or a passage the corpus returned (a citation replaces it)
  const [opened, setOpened] = useState<PageTarget | null>(null);
  const openCitation = (n: number | null, evidenceId: string | null = null) => {
    if (n !== null || evidenceId !== null) {
      rememberOpener();
      setOpened(null);
      setTab("report"); // a citation is the report's: its [n] is there
    }
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.delete("cite");
        next.delete("evidence");
        if (n !== null) next.set("cite", String(n));
        if (evidenceId !== null) next.set("evidence", evidenceId);
        return next;
      },
      { replace: false },
    );
  };
  const openPage = (target: PageTarget) => {
    if (params.has("cite") || params.has("evidence")) openCitation(null);
    setOpened(target);
  };
  // Web sources have no PDF page: the report links them to their page instead of opening the viewer.
  const source = useMemo(() => {
    const cited = report?.sources?.find((s) => (evidence ? s.evidence_id === evidence : s.n === cite) && s.kind !== "web");
    return cited ?? (evidence ? draftSource(view, evidence) : null);
  }, [report, cite, evidence, view]);
  usePolledDetail(runId, status === "running", 3000);
  const clarificationBox = useRef<HTMLDivElement>(null);
  const round = interrupt?.kind === "clarification" ? interrupt.round : null;
  useEffect(() => {
    // a new round of questions: the focus goes to its answer
    if (round !== null) clarificationBox.current?.querySelector<HTMLElement>("textarea, input")?.focus();
  }, [round]);

  if (detail.error) return <ErrorAlert error={detail.error} title={t("run.notFound")} />;
  if (!detail.data) return <p>{t("common.loading")}</p>;

  // A finished run opens on its report; the way there is one tab away.
  const finished = report !== null && Boolean(report.report_markdown) && status === "done";
  const shownTab = finished ? tab : "report";
  const clarifying = interrupt?.kind === "clarification" || view.phase === "clarify";
  const clarification = (
    <div ref={clarificationBox}>
      <ClarificationPanel
        interrupt={interrupt?.kind === "clarification" ? interrupt : null}
        history={view.clarifications}
        activity={view.clarifyActivity}
        clarifying={view.phase === "clarify" && isActive(status)}
        onAnswer={answer}
        pending={resume.isPending}
        failed={resume.isError}
        onOpenPassage={openPage}
      />
    </div>
  );
  const pastClarification = view.clarifications.length > 0 && (
    <Collapsed summary={t("run.clarificationRounds", { n: view.clarifications.length })} testId="run-clarification-history">
      {clarification}
    </Collapsed>
  );
  const forms = (
    <>
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
    </>
  );
  const reportView = report && report.report_markdown && (
    <Suspense fallback={<p>{t("common.loading")}</p>}>
      {/* one Warnings box: the report's, with the run's own warnings it does not hold */}
      <ReportView runId={runId} result={withRunWarnings(report, view.warnings)} onCite={openCitation} active={cite} />
    </Suspense>
  );

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
          views={
            finished && (
              <TabList
                label={t("run.views")}
                tabs={[
                  { key: "report", label: t("run.tabReport") },
                  { key: "how", label: t("run.tabHow") },
                ]}
                selected={shownTab}
                onSelect={setTab}
              />
            )
          }
        />
        <RunAnnouncer view={view} interrupt={interrupt} />
        <p className="muted small" aria-live="polite">
          {state === "reconnecting" ? t("run.reconnecting") : state === "connecting" ? t("run.connecting") : ""}
        </p>
        <ErrorAlert error={cancel.error ?? resume.error ?? remove.error} />
        {stopped && interrupt !== null && <p className="alert alert-info">{t("run.answerToContinue")}</p>}
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
        {finished ? (
          <>
            <TabPanel tab="report" selected={shownTab === "report"}>
              {reportView}
            </TabPanel>
            <TabPanel tab="how" selected={shownTab === "how"}>
              <RunProgress view={view} now={now} clarification={view.clarifications.length > 0 && clarification} warnings={false} onOpenPage={openPage} />
            </TabPanel>
          </>
        ) : (
          <>
            <RunProgress view={view} now={now} clarification={clarifying ? clarification : pastClarification} forms={forms} warnings={!reportView} onOpenPage={openPage} />
            {!report && <DraftReport view={view} active={isActive(status)} onCite={(id) => openCitation(null, id)} />}
            {reportView}
          </>
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
