import { useQuery } from "@tanstack/react-query";
import { listDocuments } from "../../../api/generated/sdk.gen";
import type { DocumentStatus } from "../../../api/generated/types.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

export type ViewerKind = DocumentStatus["viewer"];

/**
 * What the viewer shows of `document` (GET /api/collections/{name}/documents, the query the page count
 * shares): "pdf" for a PDF's pages, "text" for the stored text of a DOCX, HTML, Markdown or text document;
 * null while the list loads ("pdf" when it cannot be loaded: the PDF viewer says what it cannot show).
 */
export function useDocumentViewer(collection: string, document: string): ViewerKind | null {
  const documents = useQuery({
    queryKey: queryKeys.documents(collection),
    queryFn: ({ signal }) => unwrap(listDocuments({ path: { name: collection }, signal })),
    staleTime: 60_000,
  });
  if (documents.isPending) return null;
  const found = documents.data?.find((d) => d.file_name === document);
  return found?.viewer === "text" ? "text" : "pdf";
}
