import { useQuery } from "@tanstack/react-query";
import { getSession } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /api/session: whether the server wants a token and how the app gives it (the cookie: signed in). */
export function useSession() {
  return useQuery({
    queryKey: queryKeys.session,
    queryFn: ({ signal }) => unwrap(getSession({ signal })),
    retry: false,
  });
}
