import { act } from "@testing-library/react";
import { FakeEventSource } from "./fakeEventSource";

/**
 * A run's event stream for the run page's tests: every EventSource the page opens is kept in `made` (the
 * latest is the live one), and `send` delivers one run event (`data` as the server writes it, numbered by
 * `seq`) inside React's act.
 */
export class FakeRunStream extends FakeEventSource {
  static made: FakeRunStream[] = [];
  constructor(url: string) {
    super(url);
    FakeRunStream.made.push(this);
  }
  send(seq: number, type: string, fields: Record<string, unknown>) {
    const created = new Date(Date.UTC(2026, 10, 23, 21, 0, seq)).toISOString();
    const data = JSON.stringify({ type, seq, run_id: "r1", created_at: created, ...fields });
    act(() => this.dispatch(type, data, String(seq)));
  }
}
