import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../../../test/fakeEventSource";
import { EVENTS_APPLIED_MARK, useRunEvents } from "./useRunEvents";

class FakeSource extends FakeEventSource {
  static made: FakeSource[] = [];
  constructor(url: string) {
    super(url);
    FakeSource.made.push(this);
  }
  send(seq: number, type: string, fields: Record<string, unknown> = {}) {
    const data = JSON.stringify({ type, seq, run_id: "r1", created_at: "2026-11-28T01:00:00Z", ...fields });
    act(() => this.dispatch(type, data, String(seq)));
  }
}

/** The numbers the app's commit marks carried, as a PerformanceObserver sees them (bench_web reads them). */
function marked(): number[] {
  return performance.getEntriesByName(EVENTS_APPLIED_MARK).map((entry) => Number((entry as PerformanceMark).detail));
}

describe("useRunEvents", () => {
  beforeEach(() => {
    FakeSource.made = [];
    vi.stubGlobal("EventSource", FakeSource);
    performance.clearMarks(EVENTS_APPLIED_MARK);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("marks each commit that applied events with the last event's number, also one that shows nothing", () => {
    const { result } = renderHook(() => useRunEvents("r1"));
    expect(marked()).toEqual([]);
    const stream = FakeSource.made.at(-1)!;
    stream.send(1, "status", { status: "running" });
    expect(result.current.log.view.lastSeq).toBe(1);
    expect(marked()).toEqual([1]);
    stream.send(2, "assessment", { answerable: true, reason: "" });
    expect(marked()).toEqual([2]); // only the newest stays in the page's buffer
    const [before] = performance.getEntriesByName(EVENTS_APPLIED_MARK);
    stream.send(2, "assessment", { answerable: true, reason: "" }); // a repeat applies nothing: no new mark
    expect(performance.getEntriesByName(EVENTS_APPLIED_MARK).map((entry) => entry.startTime)).toEqual([before!.startTime]);
    stream.send(3, "phase", { phase: "plan" });
    expect(marked()).toEqual([3]);
    expect(performance.getEntriesByName(EVENTS_APPLIED_MARK)[0]!.startTime).toBeGreaterThan(before!.startTime);
  });
});
