import { apiUrl } from "../../../shared/api/base";

/** Where the server serves a document's PDF (uploaded, or the file a folder was ingested from). */
export function pdfUrl(collection: string, document: string): string {
  return apiUrl(`/api/collections/${encodeURIComponent(collection)}/documents/${encodeURIComponent(document)}/pdf`);
}

/** A page of the document drawn as a PNG image by the server (a scanned page, an image file's page). */
export function pageImageUrl(collection: string, document: string, page: number, width: number): string {
  const base = `/api/collections/${encodeURIComponent(collection)}/documents/${encodeURIComponent(document)}`;
  return apiUrl(`${base}/pages/${page}/image?width=${width}`);
}

/** The whole PDF opened at `page` by the browser's own viewer (the #page fragment of PDF open parameters). */
export function pdfPageUrl(collection: string, document: string, page: number): string {
  return `${pdfUrl(collection, document)}#page=${page}`;
}

/** Where the server serves the file a document was ingested from, any format, as a download. */
export function originalFileUrl(collection: string, document: string): string {
  return apiUrl(`/api/collections/${encodeURIComponent(collection)}/documents/${encodeURIComponent(document)}/file`);
}
