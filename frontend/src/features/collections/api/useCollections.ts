import { useQuery } from "@tanstack/react-query";
import { listCollections } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/collections */
export function useCollections() {
  return useQuery({
    queryKey: queryKeys.collections,
    queryFn: ({ signal }) => unwrap(listCollections({ signal })),
  });
}
