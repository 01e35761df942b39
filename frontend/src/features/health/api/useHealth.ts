import { useQuery } from "@tanstack/react-query";
import { health } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";
import { queryKeys } from "../../../shared/api/queryKeys";

/** GET /health, every 15 s (every 2 s while the server is still starting). */
export function useHealth() {
  return useQuery({
    queryKey: queryKeys.health,
    queryFn: ({ signal }) => unwrap(health({ signal })),
    refetchInterval: (query) => (query.state.data?.status === "starting" ? 2000 : 15000),
  });
}
