import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from "react";
import { apiUrl } from "../../../shared/api/base";
import { accessGate } from "../../../shared/auth/accessGate";
import { useAccessRequired } from "../../../shared/auth/useAccess";
import { EventStream, type StreamState } from "../../../shared/sse/eventStream";
import { parseRunEvent, RUN_EVENT_TYPES } from "../events/parse";
import { addEvents, EMPTY_LOG, type RunEventLog } from "../events/reducer";
import type { RunEvent } from "../events/types";

/** The User Timing mark set when a render that applied a run's events reaches the DOM; its detail is the
 * number of the last event applied (bench_web's SSE event -> DOM measurement reads it; DevTools shows it). */
export const EVENTS_APPLIED_MARK = "rabbithole:run-events-applied";

type Action = { kind: "events"; events: RunEvent[] } | { kind: "reset" };

function logReducer(log: RunEventLog, action: Action): RunEventLog {
  return action.kind === "reset" ? EMPTY_LOG : addEvents(log, action.events);
}

export interface RunEventsResult {
  log: RunEventLog;
  state: StreamState;
  /** Opens the stream again from the last event (after a resume: a finished stream does not reopen itself). */
  reconnect: () => void;
}

/**
 * Follows a run's events: replays them from the start, then live; reconnects with `?after=` the last event
 * number after a network error; stops after the run's final event (done or error) until `reconnect()`.
 * Each event listener notifies `onEvent` too (the run page refreshes the run's detail from it). Not
 * `enabled` (the run does not exist), or while the app asks for the access token: no stream (after the
 * sign-in it continues after the last event it has).
 */
export function useRunEvents(
  runId: string,
  onEvent?: (event: RunEvent) => void,
  enabled = true,
): RunEventsResult {
  const [log, dispatch] = useReducer(logReducer, EMPTY_LOG);
  const [state, setState] = useState<StreamState>("connecting");
  const [generation, setGeneration] = useState(0);
  const lastSeq = useRef(0);
  const terminal = useRef(false);
  const onEventRef = useRef(onEvent);
  const locked = useAccessRequired();

  useEffect(() => {
    onEventRef.current = onEvent;
  }, [onEvent]);

  useEffect(() => {
    lastSeq.current = log.view.lastSeq;
    terminal.current = log.view.terminal;
  }, [log.view.lastSeq, log.view.terminal]);

  // In the commit that put the events into the DOM (layout effects run right after its mutations). Only the
  // newest mark is kept in the page's buffer; a PerformanceObserver sees every one.
  useLayoutEffect(() => {
    if (log.view.lastSeq === 0 || typeof performance.mark !== "function") return;
    performance.clearMarks(EVENTS_APPLIED_MARK);
    performance.mark(EVENTS_APPLIED_MARK, { detail: log.view.lastSeq });
  }, [log.view.lastSeq]);

  useEffect(() => {
    dispatch({ kind: "reset" });
    lastSeq.current = 0;
    terminal.current = false;
  }, [runId]);

  useEffect(() => {
    if (!enabled || locked) return;
    const stream = new EventStream({
      url: () => apiUrl(`/api/runs/${encodeURIComponent(runId)}/events?after=${lastSeq.current}`),
      types: RUN_EVENT_TYPES,
      access: accessGate,
      onEvent: (_type, data) => {
        const event = parseRunEvent(data);
        if (event === null) return;
        if (event.seq > lastSeq.current) lastSeq.current = event.seq;
        if (event.type === "done" || event.type === "error") terminal.current = true;
        else if (event.type === "status" && (event.status === "running" || event.status === "queued"))
          terminal.current = false;
        dispatch({ kind: "events", events: [event] });
        onEventRef.current?.(event);
      },
      onState: setState,
      shouldReconnect: () => !terminal.current,
    });
    stream.start();
    return () => stream.stop();
  }, [runId, generation, enabled, locked]);

  const reconnect = useCallback(() => {
    terminal.current = false;
    setGeneration((g) => g + 1);
  }, []);

  return { log, state, reconnect };
}
