import { apiUrl } from "../api/base";

/**
 * The session's CSRF token (server.auth = accounts): the server gives it in GET /api/session, the app sends
 * it as `X-CSRF-Token` with every request that changes something (the generated client's interceptor, the
 * upload). Kept in memory only; a page on another origin can neither read it nor send the header.
 */
export const CSRF_HEADER = "X-CSRF-Token";

let token: string | null = null;
let known = false; // whether the server said (null: it gives none)
let pending: Promise<string | null> | null = null;

/** The token GET /api/session gave (null: none, as outside accounts mode or signed out). */
export function setCsrfToken(value: string | null | undefined): void {
  token = value ?? null;
  known = true;
}

/** Forget the token (signed out, or signed in anew: the next session has another). */
export function forgetCsrfToken(): void {
  token = null;
  known = false;
  pending = null;
}

/** Whether a request of this method changes something (and so needs the token). */
export function changesSomething(method: string): boolean {
  return !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}

/** The token, asking GET /api/session once when the app has none yet; null where the server gives none. */
export async function csrfToken(): Promise<string | null> {
  if (known) return token;
  pending ??= fetch(apiUrl("/api/session"), { credentials: "same-origin" })
    .then(async (response) => {
      if (!response.ok) return null;
      const state = (await response.json()) as { csrf_token?: string | null };
      setCsrfToken(state.csrf_token);
      return token;
    })
    .catch(() => null)
    .finally(() => {
      pending = null;
    });
  return pending;
}
