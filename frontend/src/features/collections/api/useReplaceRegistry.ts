import { useMutation, useQueryClient } from "@tanstack/react-query";
import { replaceRegistry } from "../../../api/generated/sdk.gen";
import type { RegistryFile } from "../../../api/generated/types.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** PUT /api/collections/{name}/registry: replaces the user registry file; answers the rebuilt registry. */
export function useReplaceRegistry(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: RegistryFile) => unwrap(replaceRegistry({ path: { name }, body: file })),
    onSuccess: (registry) => queryClient.setQueryData(queryKeys.registry(name), registry),
  });
}
