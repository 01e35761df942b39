import { useMutation, useQueryClient } from "@tanstack/react-query";
import { resumeRun } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";
import type { ResumeBody } from "../events/types";

/** POST /api/runs/{id}/resume: a clarification answer, the plan decision, or {} to continue a stopped run. */
export function useResumeRun(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ResumeBody) => unwrap(resumeRun({ path: { run_id: runId }, body })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }),
  });
}
