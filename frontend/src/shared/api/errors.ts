/** The API's one error shape, {"error": {type, message, details?}}, as a thrown Error. */
export interface ErrorBody {
  type: string;
  message: string;
  details?: Array<Record<string, unknown>> | null;
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly details: Array<Record<string, unknown>>;

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.type = body.type;
    this.details = body.details ?? [];
  }
}

function isErrorBody(value: unknown): value is { error: ErrorBody } {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === "object" && error !== null && "message" in error && "type" in error;
}

/** An ApiError from whatever a failed request gave: the JSON error body, or a status without one. */
export function toApiError(status: number, body: unknown): ApiError {
  if (isErrorBody(body)) return new ApiError(status, body.error);
  const text = typeof body === "string" && body.trim() ? body.trim().slice(0, 300) : `HTTP ${status}`;
  return new ApiError(status, { type: status === 0 ? "NetworkError" : "HTTPError", message: text });
}

/** What the generated client returns ({data, error, response}) as data, or a thrown ApiError. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response?: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response?: Response };
  try {
    result = await call;
  } catch (cause) {
    throw new ApiError(0, {
      type: "NetworkError",
      message: cause instanceof Error ? cause.message : String(cause),
    });
  }
  const status = result.response?.status ?? 0;
  if (result.error !== undefined || (result.response !== undefined && !result.response.ok)) {
    throw toApiError(status, result.error);
  }
  return result.data as T;
}
