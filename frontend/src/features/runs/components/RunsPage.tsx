import { Link } from "react-router";
import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useRuns } from "../api/useRuns";
import { StatusBadge } from "./StatusBadge";

/** Every run, newest first, live (the run list stream refreshes it). */
export function RunsPage() {
  const { t, formatDate } = useI18n();
  const { data, error, isPending } = useRuns();
  return (
    <section data-testid="runs-list" aria-labelledby="runs-title">
      <div className="page-head">
        <h1 id="runs-title">{t("runs.title")}</h1>
        <Link className="button primary" to="/runs/new">
          {t("nav.newRun")}
        </Link>
      </div>
      <ErrorAlert error={error} />
      {isPending && <p>{t("common.loading")}</p>}
      {data && data.items.length === 0 && <p>{t("runs.empty")}</p>}
      {data && data.items.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">{t("runs.title")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("runs.status")}</th>
              <th scope="col">{t("runs.question")}</th>
              <th scope="col">{t("runs.collections")}</th>
              <th scope="col">{t("runs.phase")}</th>
              <th scope="col">{t("runs.created")}</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((run) => (
              <tr key={run.run_id} data-run-id={run.run_id}>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td>
                  <Link to={`/runs/${encodeURIComponent(run.run_id)}`}>{run.question}</Link>
                </td>
                <td>{run.collections.join(", ")}</td>
                <td>{run.phase ? t(`phase.${run.phase}` as MessageKey) : ""}</td>
                <td>
                  <time dateTime={run.created_at}>{formatDate(run.created_at)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && data.total > data.items.length && (
        <p>{t("runs.more", { shown: data.items.length, total: data.total })}</p>
      )}
    </section>
  );
}
