import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { queryKeys } from "../../../shared/api/queryKeys";
import type { RunEvent } from "../events/types";

/** Refreshes the run's detail (LLM calls, todo) at most every `ms` while events arrive. */
export function useThrottledRefresh(runId: string, ms: number) {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return useCallback(
    (event: RunEvent) => {
      const urgent = event.type === "status" || event.type === "done" || event.type === "error" || event.type === "report";
      if (urgent) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) });
        return;
      }
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) });
      }, ms);
    },
    [queryClient, runId, ms],
  );
}

/** Refreshes the run's detail every `ms` while the run is running: its LLM calls go on between events
 * (a model call of a clarification round, a long synthesis) too. */
export function usePolledDetail(runId: string, running: boolean, ms: number) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!running) return;
    const id = setInterval(() => void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }), ms);
    return () => clearInterval(id);
  }, [queryClient, runId, running, ms]);
}

/** The current time, every second while `active`. */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}

/** The report's first [n] button of citation `n` (its text is the number, a weak one's with a mark). */
function citationButton(n: number): HTMLElement | null {
  const buttons = document.querySelectorAll<HTMLElement>('[data-testid="report"] button.cite');
  return Array.from(buttons).find((b) => (b.textContent ?? "").replace(/\D/g, "") === String(n)) ?? null;
}

/**
 * The citation viewer's focus: the element that opened it (an [n] in the report, a source) is remembered;
 * when the viewer closes (Escape, its button, the browser's back), the focus goes back there, or, for a
 * viewer opened by the URL (?cite=N), to the report's button of that citation.
 */
export function useCitationFocus(cite: number | string | null) {
  const opener = useRef<HTMLElement | null>(null);
  const shown = useRef<number | string | null>(null);
  useEffect(() => {
    const closed = shown.current;
    shown.current = cite;
    if (cite !== null || closed === null) return;
    const back = opener.current?.isConnected ? opener.current : typeof closed === "number" ? citationButton(closed) : null;
    opener.current = null;
    back?.focus();
  }, [cite]);
  return useCallback(() => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  }, []);
}
