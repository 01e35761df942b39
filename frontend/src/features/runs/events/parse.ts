import type { RunEvent } from "./types";

/** A type of GET /api/runs/{id}/events (the generated `RunEventPayload`'s discriminator). */
export type RunEventType = RunEvent["type"];

/** Every run event type once: the compiler refuses a type missing here or one the API does not send, so
 * the app never misses an event type the server adds (EventSource only delivers the types listened for). */
const LISTENED: Record<RunEventType, true> = {
  status: true,
  phase: true,
  language: true,
  clarification: true,
  clarification_progress: true,
  clarification_answer: true,
  assessment: true,
  plan: true,
  todo: true,
  task_progress: true,
  reference_followed: true,
  outline: true,
  section: true,
  warning: true,
  draft_section: true,
  draft_text: true,
  remediation: true,
  interrupt: true,
  report: true,
  error: true,
  done: true,
};

function isRunEventType(value: unknown): value is RunEventType {
  return typeof value === "string" && Object.hasOwn(LISTENED, value);
}

/** The event types the app listens for on a run's stream. */
export const RUN_EVENT_TYPES: RunEventType[] = Object.keys(LISTENED).filter(isRunEventType);

/**
 * Whether a JSON value is one of the run's events: a known `type` and a number. Its fields are the server's
 * (the generated `RunEventPayload`, which the backend's models and a test of every event of real runs hold
 * to); the view reads them through the union narrowed by `type`.
 */
export function isRunEvent(value: unknown): value is RunEvent {
  if (typeof value !== "object" || value === null) return false;
  return "type" in value && isRunEventType(value.type) && "seq" in value && typeof value.seq === "number";
}

/** Parses one SSE message's data; null when it is not a run event. */
export function parseRunEvent(data: string): RunEvent | null {
  try {
    const value: unknown = JSON.parse(data);
    return isRunEvent(value) ? value : null;
  } catch {
    return null;
  }
}
