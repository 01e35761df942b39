import { useMutation, useQueryClient } from "@tanstack/react-query";
import { cancelRun } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** POST /api/runs/{id}/cancel */
export function useCancelRun(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(cancelRun({ path: { run_id: runId } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.runs }),
  });
}
