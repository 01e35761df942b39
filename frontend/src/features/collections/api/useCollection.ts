import { useQuery } from "@tanstack/react-query";
import { getCollection } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/collections/{name} */
export function useCollection(name: string) {
  return useQuery({
    queryKey: queryKeys.collection(name),
    queryFn: ({ signal }) => unwrap(getCollection({ path: { name }, signal })),
  });
}
