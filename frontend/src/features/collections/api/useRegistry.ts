import { useQuery } from "@tanstack/react-query";
import { collectionRegistry } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/collections/{name}/registry: the registry references resolve to. */
export function useRegistry(name: string) {
  return useQuery({
    queryKey: queryKeys.registry(name),
    queryFn: ({ signal }) => unwrap(collectionRegistry({ path: { name }, signal })),
  });
}
