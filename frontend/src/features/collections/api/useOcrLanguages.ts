import { useQuery } from "@tanstack/react-query";
import { ocrLanguages } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/ocr/languages: the Tesseract languages installed on the server, and its default. */
export function useOcrLanguages() {
  return useQuery({
    queryKey: queryKeys.ocrLanguages,
    queryFn: ({ signal }) => unwrap(ocrLanguages({ signal })),
    staleTime: 5 * 60_000,
  });
}
