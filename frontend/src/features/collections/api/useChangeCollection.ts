import { useMutation, useQueryClient } from "@tanstack/react-query";
import { changeCollection } from "../../../api/generated/sdk.gen";
import type { CollectionSettings } from "../../../api/generated/types.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** PATCH /api/collections/{name}: its settings (the OCR languages); answers the collection as GET does. */
export function useChangeCollection(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: CollectionSettings) => unwrap(changeCollection({ path: { name }, body: settings })),
    onSuccess: (detail) => {
      queryClient.setQueryData(queryKeys.collection(name), detail);
      void queryClient.invalidateQueries({ queryKey: queryKeys.collections, exact: true });
    },
  });
}
