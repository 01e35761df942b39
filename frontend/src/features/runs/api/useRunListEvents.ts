import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { apiUrl } from "../../../shared/api/base";
import { queryKeys } from "../../../shared/api/queryKeys";
import { accessGate } from "../../../shared/auth/accessGate";
import { useAccessRequired } from "../../../shared/auth/useAccess";
import { EventStream } from "../../../shared/sse/eventStream";

/**
 * Follows GET /api/runs/events (changes of the run list) for the app's lifetime and refreshes the run
 * queries a change touches, so the runs list and every open run page stay live. The stream is live only:
 * after a reconnect (its `ready` event) everything about runs is refreshed once. Closed while the app asks
 * for the access token (after signing out too), opened again after the sign-in.
 */
export function useRunListEvents(): void {
  const queryClient = useQueryClient();
  const locked = useAccessRequired();
  useEffect(() => {
    if (locked) return;
    const stream = new EventStream({
      url: () => apiUrl("/api/runs/events"),
      types: ["ready", "status", "phase", "deleted"],
      access: accessGate,
      onEvent: (type, data) => {
        if (type === "ready") {
          void queryClient.invalidateQueries({ queryKey: queryKeys.runs });
          return;
        }
        void queryClient.invalidateQueries({ queryKey: ["runs", "list"] });
        try {
          const change = JSON.parse(data) as { run_id?: string };
          if (change.run_id) void queryClient.invalidateQueries({ queryKey: queryKeys.run(change.run_id) });
        } catch {
          // a malformed change: the list refresh above covers it
        }
      },
    });
    stream.start();
    return () => stream.stop();
  }, [queryClient, locked]);
}
