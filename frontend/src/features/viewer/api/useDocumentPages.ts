import { useQuery } from "@tanstack/react-query";
import { documentPages } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/collections/{name}/documents/{file_name}/pages?page=N: the page's text and its offset. */
export function useDocumentPage(collection: string, document: string, page: number) {
  return useQuery({
    queryKey: queryKeys.pages(collection, document, page),
    queryFn: ({ signal }) =>
      unwrap(documentPages({ path: { name: collection, file_name: document }, query: { page }, signal })),
    staleTime: Infinity,
  });
}
