import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deleteSession } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { accessGate } from "../../../shared/auth/accessGate";
import { forgetCsrfToken } from "../../../shared/auth/csrf";

/** DELETE /api/session: the server clears the session cookie; the app asks for the token again and forgets
 * what it showed (every query starts over). */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(deleteSession()),
    onSuccess: () => {
      forgetCsrfToken();
      accessGate.deny();
      void queryClient.resetQueries();
    },
  });
}
