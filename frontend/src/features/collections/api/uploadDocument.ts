import type { IngestJob } from "../../../api/generated/types.gen";
import { apiUrl } from "../../../shared/api/base";
import { ApiError, toApiError } from "../../../shared/api/errors";

/**
 * POST /api/collections/{name}/documents with one file, over XMLHttpRequest: the generated (fetch) client
 * cannot report upload progress. Resolves with the ingestion job (202), rejects with the API's error (for
 * example 422 with the reason the file was rejected, 413 when it is too large).
 */
export function uploadDocument(
  collection: string,
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<IngestJob> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", apiUrl(`/api/collections/${encodeURIComponent(collection)}/documents`));
    xhr.responseType = "text";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: keep the text
      }
      if (xhr.status === 202 || xhr.status === 200) {
        onProgress(1);
        resolve(body as IngestJob);
      } else reject(toApiError(xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiError(0, { type: "NetworkError", message: "network error" }));
    xhr.onabort = () => reject(new ApiError(0, { type: "Aborted", message: "upload cancelled" }));
    signal?.addEventListener("abort", () => xhr.abort());
    const form = new FormData();
    form.append("files", file, file.name);
    xhr.send(form);
  });
}
