import type { IngestJob } from "../../../api/generated/types.gen";
import { apiUrl } from "../../../shared/api/base";
import { ApiError, toApiError } from "../../../shared/api/errors";
import { accessGate } from "../../../shared/auth/accessGate";
import { CSRF_HEADER, csrfToken } from "../../../shared/auth/csrf";

/**
 * POST /api/collections/{name}/documents with one file, over XMLHttpRequest: the generated (fetch) client
 * cannot report upload progress. Resolves with the ingestion job (202), rejects with the API's error (for
 * example 422 with the reason the file was rejected, 413 when it is too large). Refused for want of the
 * access token (401): the app asks for it, and the file is sent again once it is given.
 */
export async function uploadDocument(
  collection: string,
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<IngestJob> {
  for (;;) {
    const { status, body } = await send(collection, file, onProgress, await csrfToken(), signal);
    if (status === 202 || status === 200) {
      onProgress(1);
      return body as IngestJob;
    }
    if (status !== 401) throw toApiError(status, body);
    accessGate.deny();
    onProgress(0);
    await accessGate.whenGranted(signal);
  }
}

function send(
  collection: string,
  file: File,
  onProgress: (fraction: number) => void,
  csrf: string | null,
  signal?: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ApiError(0, { type: "Aborted", message: "upload cancelled" }));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open("POST", apiUrl(`/api/collections/${encodeURIComponent(collection)}/documents`));
    xhr.responseType = "text";
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf); // accounts mode: the session's CSRF token
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
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new ApiError(0, { type: "NetworkError", message: "network error" }));
    xhr.onabort = () => reject(new ApiError(0, { type: "Aborted", message: "upload cancelled" }));
    const abort = () => xhr.abort();
    signal?.addEventListener("abort", abort, { once: true });
    xhr.addEventListener("loadend", () => signal?.removeEventListener("abort", abort));
    const form = new FormData();
    form.append("files", file, file.name);
    xhr.send(form);
  });
}
