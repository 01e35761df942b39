import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { search } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/search over one collection; idle while the query is empty. */
export function useSearch(collection: string, q: string, k = 10) {
  return useQuery({
    queryKey: queryKeys.search(collection, q, k),
    queryFn: ({ signal }) => unwrap(search({ query: { q, collection: [collection], k }, signal })),
    enabled: q.trim().length > 0,
    placeholderData: keepPreviousData,
  });
}
