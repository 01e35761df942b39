import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { listRuns } from "../../../api/generated/sdk.gen";
import type { RunStatus } from "../events/types";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** What the runs list shows: runs of one status (null: any) whose question contains `question`. */
export interface RunFilter {
  status: RunStatus | null;
  question: string;
}

const ANY: RunFilter = { status: null, question: "" };

/** GET /api/runs, newest first, filtered (`status`, `q`); kept live by useRunListEvents (invalidation). */
export function useRuns(limit = 50, filter: RunFilter = ANY) {
  const question = filter.question.trim();
  return useQuery({
    queryKey: queryKeys.runList(limit, filter.status ?? "", question),
    queryFn: ({ signal }) =>
      unwrap(
        listRuns({
          query: { limit, ...(filter.status ? { status: [filter.status] } : {}), ...(question ? { q: question } : {}) },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
}
