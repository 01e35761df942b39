import { useMutation, useQueryClient } from "@tanstack/react-query";
import { createSession } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { accessGate } from "../../../shared/auth/accessGate";

/**
 * POST /api/session with the token: the server sets the session cookie. Then everything that waited for
 * the token goes on (accessGate.grant) and every query is fetched again.
 */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => unwrap(createSession({ body: { token } })),
    onSuccess: async () => {
      accessGate.grant();
      await queryClient.invalidateQueries();
    },
  });
}
