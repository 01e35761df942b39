import { useMutation, useQueryClient } from "@tanstack/react-query";
import { createSession } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { accessGate } from "../../../shared/auth/accessGate";
import { forgetCsrfToken } from "../../../shared/auth/csrf";

/** What signs in: the server's token (server.auth token), or a name and a password (accounts). */
export type Credentials = { token: string } | { name: string; password: string };

/**
 * POST /api/session with the credentials: the server sets the session cookie. Then everything that waited
 * for it goes on (accessGate.grant) and every query is fetched again (the session's new CSRF token too).
 */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: Credentials) => unwrap(createSession({ body: credentials })),
    onSuccess: async () => {
      forgetCsrfToken();
      accessGate.grant();
      await queryClient.invalidateQueries();
    },
  });
}
