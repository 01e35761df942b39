import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deleteCollection } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** DELETE /api/collections/{name} */
export function useDeleteCollection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(deleteCollection({ path: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.collections }),
  });
}
