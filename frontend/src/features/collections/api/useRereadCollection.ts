import { useMutation } from "@tanstack/react-query";
import { rereadCollection } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";

/** POST /api/collections/{name}/ocr/reread: the documents OCR read in other languages read again, as a job. */
export function useRereadCollection() {
  return useMutation({
    mutationFn: (name: string) => unwrap(rereadCollection({ path: { name } })),
  });
}
