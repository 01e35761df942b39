/** An EventSource stand-in a test drives: it keeps the named-event listeners and delivers events or
 * failures when the test says so. A test subclasses it with its own event shape and a static list of the
 * instances made (reset before each test), and installs the subclass with `vi.stubGlobal("EventSource", ...)`
 * or passes it where a constructor is expected. */
export class FakeEventSource {
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  private listeners = new Map<string, Array<(e: MessageEvent) => void>>();

  constructor(readonly url: string) {}

  addEventListener(type: string, fn: (e: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }

  close() {
    this.closed = true;
  }

  /** Deliver one named event to its listeners, as the server's `event: type` / `id: lastEventId` frame. */
  dispatch(type: string, data: string, lastEventId: string) {
    const event = new MessageEvent(type, { data, lastEventId });
    for (const fn of this.listeners.get(type) ?? []) fn(event);
  }
}
