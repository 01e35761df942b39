import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../../test/fakeEventSource";
import { AccessGate } from "../auth/accessGate";
import { EventStream, type StreamAccess, type StreamState } from "./eventStream";

/** The shared stand-in, with the event shape this stream test sends: `{ seq }`. */
class FakeSource extends FakeEventSource {
  static made: FakeSource[] = [];
  constructor(url: string) {
    super(url);
    FakeSource.made.push(this);
  }
  emit(type: string, seq: number) {
    this.dispatch(type, JSON.stringify({ seq }), String(seq));
  }
}

beforeEach(() => {
  FakeSource.made = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

function start(shouldReconnect = () => true, access?: StreamAccess) {
  let cursor = 0;
  const states: StreamState[] = [];
  const seen: number[] = [];
  const stream = new EventStream({
    url: () => `/api/runs/r/events?after=${cursor}`,
    types: ["phase"],
    onEvent: (_type, data) => {
      const seq = (JSON.parse(data) as { seq: number }).seq;
      seen.push(seq);
      cursor = Math.max(cursor, seq);
    },
    onState: (s) => states.push(s),
    shouldReconnect,
    access,
    createEventSource: (url) => new FakeSource(url) as unknown as EventSource,
  });
  stream.start();
  return { stream, states, seen };
}

describe("event stream", () => {
  it("reconnects after an error from the last event it has, backing off", () => {
    const { states, seen } = start();
    const first = FakeSource.made[0]!;
    expect(first.url).toBe("/api/runs/r/events?after=0");
    first.onopen?.();
    first.emit("phase", 1);
    first.emit("phase", 2);
    first.onerror?.();
    expect(first.closed).toBe(true);
    expect(states.at(-1)).toBe("reconnecting");
    expect(FakeSource.made).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(FakeSource.made).toHaveLength(2);
    expect(FakeSource.made[1]!.url).toBe("/api/runs/r/events?after=2");
    FakeSource.made[1]!.onerror?.();
    vi.advanceTimersByTime(1999);
    expect(FakeSource.made).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSource.made).toHaveLength(3);
    expect(seen).toEqual([1, 2]);
  });

  it("stays closed when the stream is over, and stop() ends it", () => {
    const over = start(() => false);
    FakeSource.made[0]!.onerror?.();
    vi.advanceTimersByTime(60000);
    expect(FakeSource.made).toHaveLength(1);
    expect(over.states.at(-1)).toBe("closed");

    FakeSource.made = [];
    const live = start();
    live.stream.stop();
    expect(FakeSource.made[0]!.closed).toBe(true);
    vi.advanceTimersByTime(60000);
    expect(FakeSource.made).toHaveLength(1);
  });

  it("after a refusal for the access token waits for the sign-in, then reconnects at once", async () => {
    const gate = new AccessGate();
    let denied = true;
    const access: StreamAccess = { isDenied: async () => denied, onGranted: (l) => gate.onGranted(l) };
    start(() => true, access);
    FakeSource.made[0]!.emit("phase", 4);
    FakeSource.made[0]!.onerror?.();
    await vi.advanceTimersByTimeAsync(0); // the probe answers: 401
    await vi.advanceTimersByTimeAsync(60000);
    expect(FakeSource.made).toHaveLength(1); // no retries against a server that refuses
    gate.grant();
    expect(FakeSource.made).toHaveLength(2);
    expect(FakeSource.made[1]!.url).toBe("/api/runs/r/events?after=4");

    denied = false; // another failure (the network): the usual back-off
    FakeSource.made[1]!.onerror?.();
    await vi.advanceTimersByTimeAsync(999);
    expect(FakeSource.made).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSource.made).toHaveLength(3);
    gate.grant();
    expect(FakeSource.made).toHaveLength(3); // nothing was waiting for it
  });
});
