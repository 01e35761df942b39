import type { ReactNode } from "react";
import type { RunDetail } from "../../../api/generated/types.gen";
import type { MessageKey } from "../../../shared/i18n/en";
import { useI18n } from "../../../shared/i18n/i18n";
import { formatDuration } from "../../../shared/ui/format";
import type { RunView } from "../events/types";
import { RunQuestion } from "./RunQuestion";
import { StatusBadge } from "./StatusBadge";

const MODE_LABELS: Record<RunDetail["mode"], MessageKey> = {
  interactive: "newRun.interactive",
  quick: "newRun.quick",
  report: "newRun.report",
};

const ACTIVE = new Set(["queued", "running", "waiting_for_input"]);

export function isActive(status: string | null | undefined): boolean {
  return status !== null && status !== undefined && ACTIVE.has(status);
}

/** The run's question (clamped, the whole on demand), status, elapsed time, LLM calls so far, cancel /
 * retry / delete, and ``views`` (a finished run's tabs) below them. */
export function RunHeader({
  detail,
  view,
  now,
  onCancel,
  onRetry,
  onDelete,
  busy,
  views,
}: {
  detail: RunDetail;
  view: RunView;
  now: number;
  onCancel: () => void;
  /** null: the run continues by answering its pending interrupt, not by a retry. */
  onRetry: (() => void) | null;
  onDelete: () => void;
  busy: boolean;
  views?: ReactNode;
}) {
  const { t, formatDate } = useI18n();
  const status = view.status ?? detail.run.status;
  const started = Date.parse(detail.run.created_at);
  const end = isActive(status) ? now : Date.parse(view.updatedAt ?? detail.run.updated_at);
  const calls = Object.values(detail.llm_calls).reduce((a, b) => a + b, 0);
  return (
    <header className="run-header">
      <RunQuestion question={detail.run.question} />
      <div className="run-meta">
        <StatusBadge status={status} />
        <span>
          {t("run.collections")}: {detail.run.collections.join(", ")}
        </span>
        <span data-testid="run-mode">{t(MODE_LABELS[detail.mode])}</span>
        <span>
          {t("run.created")}: <time dateTime={detail.run.created_at}>{formatDate(detail.run.created_at)}</time>
        </span>
        <span data-testid="run-elapsed">
          {t("run.elapsed")}: {formatDuration(end - started)}
        </span>
        <span data-testid="run-llm-calls" title={Object.entries(detail.llm_calls).map(([k, v]) => `${k}: ${v}`).join(", ")}>
          {t("run.llmCalls")}: {calls}
        </span>
      </div>
      <div className="actions">
        {isActive(status) && (
          <button type="button" className="danger" onClick={onCancel} disabled={busy}>
            {t("run.cancel")}
          </button>
        )}
        {(status === "error" || status === "cancelled") && onRetry !== null && (
          <button type="button" className="primary" onClick={onRetry} disabled={busy}>
            {t("run.retry")}
          </button>
        )}
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => {
            if (window.confirm(t("run.confirmDelete"))) onDelete();
          }}
        >
          {t("run.delete")}
        </button>
      </div>
      {views}
    </header>
  );
}
