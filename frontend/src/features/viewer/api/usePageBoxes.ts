import { useQuery } from "@tanstack/react-query";
import { pageBoxes } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";
import type { TextRange } from "../lib/highlight";

/** GET .../pages/{number}/boxes?start=&end=: the OCR word boxes that show the range of the page's text. */
export function usePageBoxes(collection: string, document: string, page: number, range: TextRange | null) {
  return useQuery({
    queryKey: queryKeys.pageBoxes(collection, document, page, range?.start ?? -1, range?.end ?? -1),
    queryFn: ({ signal }) =>
      unwrap(
        pageBoxes({
          path: { name: collection, file_name: document, number: page },
          query: { start: range?.start ?? 0, end: range?.end ?? 0 },
          signal,
        }),
      ),
    enabled: range !== null,
    staleTime: Infinity,
  });
}
