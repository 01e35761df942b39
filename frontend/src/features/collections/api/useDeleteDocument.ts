import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deleteDocument } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** DELETE /api/collections/{name}/documents/{file_name} */
export function useDeleteDocument(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fileName: string) => unwrap(deleteDocument({ path: { name, file_name: fileName } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.collection(name) }),
  });
}
