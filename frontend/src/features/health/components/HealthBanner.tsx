import { ApiError } from "../../../shared/api/errors";
import { useI18n } from "../../../shared/i18n/i18n";
import { useHealth } from "../api/useHealth";

/**
 * What /health says is wrong, with the fix: the LLM server not reachable (how to start it, which models to
 * pull), a missing model (`ollama pull ...`), the store or database failing, the warm-up failing, a collection
 * that cannot be searched (a damaged vector index: the reason names the rebuild).
 */
export function HealthBanner({ always = false }: { always?: boolean }) {
  const { t } = useI18n();
  const { data, error } = useHealth();
  if (error instanceof ApiError && error.status === 401) return null; // the access token form asks
  if (error) {
    return (
      <div role="alert" className="alert alert-error" data-testid="health-banner">
        <strong>{t("health.unreachable")}</strong>
        <p>{t("health.unreachableHint")}</p>
      </div>
    );
  }
  if (!data) return null;
  const problems: string[] = [];
  if (!data.llm.reachable) {
    problems.push(t("health.llmUnreachable", { url: data.llm.base_url, error: data.llm.error ?? "" }));
    const pulls = data.llm.models.map((m) => m.fix ?? `ollama pull ${m.name}`).join("; ");
    problems.push(t("health.llmStart", { pulls }));
  }
  for (const model of data.llm.models) {
    if (model.present === false) problems.push(t("health.modelMissing", { model: model.name, fix: model.fix ?? "" }));
  }
  if (!data.store.ok) problems.push(t("health.store", { detail: data.store.detail }));
  if (!data.database.ok) problems.push(t("health.database", { detail: data.database.detail }));
  if (data.warm_up_error) problems.push(t("health.warmUp", { detail: data.warm_up_error }));
  for (const c of data.unavailable_collections) {
    problems.push(t("health.collectionUnavailable", { name: c.name, reason: c.reason }));
  }
  if (problems.length === 0) {
    if (data.status === "starting") return <p className="alert alert-info">{t("health.starting")}</p>;
    return always ? <p className="alert alert-info">{t("health.ok")}</p> : null;
  }
  return (
    <div role="alert" className="alert alert-warning" data-testid="health-banner">
      <strong>{t("health.degraded")}</strong>
      <ul>
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}
