import { useQuery } from "@tanstack/react-query";
import { getRun } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/runs/{id}: status, todo, pending interrupt, LLM calls, last event number, the report. */
export function useRun(runId: string) {
  return useQuery({
    queryKey: queryKeys.run(runId),
    queryFn: ({ signal }) => unwrap(getRun({ path: { run_id: runId }, signal })),
    retry: (count, error) => count < 2 && !("status" in error && error.status === 404),
  });
}
