import { useQuery } from "@tanstack/react-query";
import { listRuns } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/runs, newest first; kept live by useRunListEvents (invalidation). */
export function useRuns(limit = 50) {
  return useQuery({
    queryKey: queryKeys.runList(limit),
    queryFn: ({ signal }) => unwrap(listRuns({ query: { limit }, signal })),
  });
}
