import { useDeferredValue, useState } from "react";
import { Link } from "react-router";
import type { RunSummary } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { formatDuration } from "../../../shared/ui/format";
import { useDeleteRun } from "../api/useDeleteRun";
import { useRuns } from "../api/useRuns";
import type { RunStatus } from "../events/types";
import { StatusBadge } from "./StatusBadge";

const STATUSES: readonly RunStatus[] = ["queued", "running", "waiting_for_input", "done", "error", "cancelled"];
const FINISHED: ReadonlySet<RunStatus> = new Set(["done", "error", "cancelled"]);

/** How long a finished run took, from its start to its last change (waits for the user included). */
function duration(run: RunSummary): string {
  if (!FINISHED.has(run.status)) return "";
  return formatDuration(Date.parse(run.updated_at) - Date.parse(run.created_at));
}

/** Every run, newest first, live (the run list stream refreshes it): filtered by status, searched by its
 * question, each with its duration and a delete button (after a confirmation). */
export function RunsPage() {
  const { t, formatDate } = useI18n();
  const [status, setStatus] = useState<RunStatus | null>(null);
  const [search, setSearch] = useState("");
  const question = useDeferredValue(search);
  const { data, error, isPending } = useRuns(50, { status, question });
  const remove = useDeleteRun();
  const filtered = status !== null || question.trim() !== "";

  const confirmDelete = (run: RunSummary) => {
    if (window.confirm(t("runs.confirmDelete", { question: run.question.slice(0, 200) }))) remove.mutate(run.run_id);
  };

  return (
    <section data-testid="runs-list" aria-labelledby="runs-title">
      <div className="page-head">
        <h1 id="runs-title">{t("runs.title")}</h1>
        <Link className="button primary" to="/runs/new">
          {t("nav.newRun")}
        </Link>
      </div>
      <form className="inline-form runs-filter" role="search" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="runs-search">{t("runs.search")}</label>
        <input id="runs-search" type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} />
        <label htmlFor="runs-status">{t("runs.status")}</label>
        <select
          id="runs-status"
          value={status ?? ""}
          onChange={(e) => setStatus(STATUSES.find((s) => s === e.target.value) ?? null)}
        >
          <option value="">{t("runs.anyStatus")}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}` as MessageKey)}
            </option>
          ))}
        </select>
      </form>
      <ErrorAlert error={error ?? remove.error} />
      {isPending && <p>{t("common.loading")}</p>}
      {data && data.items.length === 0 && <p>{filtered ? t("runs.noMatch") : t("runs.empty")}</p>}
      {data && data.items.length > 0 && (
        <div className="table-scroll">
          <table className="table runs-table">
            <caption className="visually-hidden">{t("runs.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("runs.status")}</th>
                <th scope="col">{t("runs.question")}</th>
                <th scope="col">{t("runs.collections")}</th>
                <th scope="col">{t("runs.phase")}</th>
                <th scope="col">{t("runs.created")}</th>
                <th scope="col">{t("runs.duration")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("documents.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((run) => (
                <tr key={run.run_id} data-run-id={run.run_id}>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td className="run-question">
                    <Link to={`/runs/${encodeURIComponent(run.run_id)}`}>{run.question}</Link>
                  </td>
                  <td>{run.collections.join(", ")}</td>
                  <td>{run.phase ? t(`phase.${run.phase}` as MessageKey) : ""}</td>
                  <td>
                    <time dateTime={run.created_at}>{formatDate(run.created_at)}</time>
                  </td>
                  <td className="run-duration">{duration(run)}</td>
                  <td>
                    <button
                      type="button"
                      className="danger small"
                      disabled={remove.isPending}
                      aria-label={t("runs.delete", { question: run.question.slice(0, 80) })}
                      onClick={() => confirmDelete(run)}
                    >
                      {t("common.delete")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.total > data.items.length && (
        <p>{t("runs.more", { shown: data.items.length, total: data.total })}</p>
      )}
    </section>
  );
}
