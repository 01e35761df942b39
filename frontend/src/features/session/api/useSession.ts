import { useQuery } from "@tanstack/react-query";
import { getSession } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";
import { setCsrfToken } from "../../../shared/auth/csrf";

/**
 * GET /api/session: whether the server wants a token or a sign-in, how the app gives it (the cookie: signed
 * in), and in accounts mode who is signed in and the session's CSRF token (kept for later requests).
 */
export function useSession() {
  return useQuery({
    queryKey: queryKeys.session,
    queryFn: async ({ signal }) => {
      const state = await unwrap(getSession({ signal }));
      setCsrfToken(state.csrf_token);
      return state;
    },
    retry: false,
  });
}
