import { useMutation, useQueryClient } from "@tanstack/react-query";
import { createRun } from "../../../api/generated/sdk.gen";
import type { CreateRun } from "../../../api/generated/types.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** POST /api/runs */
export function useCreateRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateRun) => unwrap(createRun({ body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.runs }),
  });
}
