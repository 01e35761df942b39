import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { getJob } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/jobs/{id}, polled every second while the ingestion job runs; the collection refreshes when done. */
export function useJob(jobId: string | null, collection: string) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: queryKeys.job(jobId ?? ""),
    queryFn: ({ signal }) => unwrap(getJob({ path: { job_id: jobId ?? "" }, signal })),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data && q.state.data.status !== "running" ? false : 1000),
  });
  const finished = query.data !== undefined && query.data.status !== "running";
  const done = query.data?.done;
  useEffect(() => {
    if (jobId !== null) void queryClient.invalidateQueries({ queryKey: queryKeys.collection(collection) });
  }, [jobId, collection, done, finished, queryClient]);
  return query;
}
