import { useQuery } from "@tanstack/react-query";
import { listDocuments } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/collections/{name}/documents: every document with its status (ingested or failed). */
export function useDocuments(name: string) {
  return useQuery({
    queryKey: queryKeys.documents(name),
    queryFn: ({ signal }) => unwrap(listDocuments({ path: { name }, signal })),
  });
}
