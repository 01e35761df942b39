import { useQuery } from "@tanstack/react-query";
import { listDocuments } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** How many pages `document` of `collection` has (GET /api/collections/{name}/documents); null until known. */
export function useDocumentPageCount(collection: string, document: string): number | null {
  const documents = useQuery({
    queryKey: queryKeys.documents(collection),
    queryFn: ({ signal }) => unwrap(listDocuments({ path: { name: collection }, signal })),
    staleTime: 60_000,
  });
  const found = documents.data?.find((d) => d.file_name === document && d.status === "ingested");
  return found ? found.pages : null;
}
