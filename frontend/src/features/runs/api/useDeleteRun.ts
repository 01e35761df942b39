import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deleteRun } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** DELETE /api/runs/{id}: cancel and forget the run. */
export function useDeleteRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => unwrap(deleteRun({ path: { run_id: runId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.runs }),
  });
}
