import { useQuery } from "@tanstack/react-query";
import { getReport } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/runs/{id}/report (the ResearchResult), once the run is done. */
export function useReport(runId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.report(runId),
    queryFn: ({ signal }) => unwrap(getReport({ path: { run_id: runId }, signal })),
    enabled,
    staleTime: Infinity,
  });
}
