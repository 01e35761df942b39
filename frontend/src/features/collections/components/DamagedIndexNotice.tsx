import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { queryKeys } from "../../../shared/api/queryKeys";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useJob } from "../api/useJob";
import { useRebuildCollection } from "../api/useRebuildCollection";

/**
 * A collection whose vector index was found damaged: why, and a button that rebuilds its vectors from the
 * catalog (the documents are kept), with the rebuild's progress; the page and /health refresh when it is done.
 */
export function DamagedIndexNotice({ collection, reason }: { collection: string; reason: string }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const rebuild = useRebuildCollection();
  const job = useJob(rebuild.data?.id ?? null, collection);
  const finished = job.data !== undefined && job.data.status !== "running";
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: queryKeys.health });
  }, [finished, queryClient]);
  const running = rebuild.isPending || (rebuild.data !== undefined && !finished);
  return (
    <div role="alert" className="alert alert-error" data-testid="damaged-index">
      <strong>{t("collection.damaged")}</strong>
      <p>{reason}</p>
      <p>{t("collection.damagedHint")}</p>
      <button type="button" className="primary" disabled={running} onClick={() => rebuild.mutate(collection)}>
        {running
          ? t("collection.rebuilding", { done: job.data?.done ?? 0, total: job.data?.total ?? 0 })
          : t("collection.rebuild")}
      </button>
      {job.data?.status === "failed" && <p>{t("collection.rebuildFailed", { error: job.data.error ?? "" })}</p>}
      <ErrorAlert error={rebuild.error} />
    </div>
  );
}
