/**
 * A server-sent event stream that reconnects: after an error it waits (1 s, doubling to 15 s) and opens the
 * URL again with the cursor the caller keeps (`?after=N`, the last event number it has), so nothing is lost
 * or repeated. The server also honours Last-Event-ID, which EventSource sends on its own reconnects; this
 * class closes the failed EventSource and reconnects itself so the cursor is always the caller's.
 */
export type StreamState = "connecting" | "open" | "reconnecting" | "closed";

export interface EventStreamOptions {
  /** The URL to open, given the caller's cursor at that moment. */
  url: () => string;
  /** Event names to listen for (SSE `event:` fields). */
  types: readonly string[];
  onEvent: (type: string, data: string, id: string) => void;
  onState?: (state: StreamState) => void;
  /** After an error or the server closing the stream: whether to connect again (false: the stream is over). */
  shouldReconnect?: () => boolean;
  createEventSource?: (url: string) => EventSource;
}

export class EventStream {
  private source: EventSource | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private delay = 1000;
  private stopped = false;
  private readonly options: EventStreamOptions;

  constructor(options: EventStreamOptions) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    this.open("connecting");
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.source?.close();
    this.source = null;
    this.options.onState?.("closed");
  }

  private open(state: StreamState): void {
    if (this.stopped) return;
    this.options.onState?.(state);
    const create = this.options.createEventSource ?? ((url: string) => new EventSource(url));
    const source = create(this.options.url());
    this.source = source;
    source.onopen = () => {
      this.delay = 1000;
      this.options.onState?.("open");
    };
    for (const type of this.options.types) {
      source.addEventListener(type, (message) => {
        const event = message as MessageEvent<string>;
        this.options.onEvent(type, event.data, event.lastEventId);
      });
    }
    source.onerror = () => {
      source.close();
      if (this.source !== source || this.stopped) return;
      this.source = null;
      if (this.options.shouldReconnect && !this.options.shouldReconnect()) {
        this.options.onState?.("closed");
        return;
      }
      this.options.onState?.("reconnecting");
      this.timer = setTimeout(() => {
        this.timer = null;
        this.open("reconnecting");
      }, this.delay);
      this.delay = Math.min(this.delay * 2, 15000);
    };
  }
}
