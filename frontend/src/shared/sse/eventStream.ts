/**
 * A server-sent event stream that reconnects: after an error it waits (1 s, doubling to 15 s) and opens the
 * URL again with the cursor the caller keeps (`?after=N`, the last event number it has), so nothing is lost
 * or repeated. The server also honours Last-Event-ID, which EventSource sends on its own reconnects; this
 * class closes the failed EventSource and reconnects itself so the cursor is always the caller's. A stream
 * refused for want of the access token (see `access`) waits for the sign-in instead.
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
  /**
   * The access token's gate (EventSource says no status): after an error, a stream the server refused
   * for want of the token waits for the sign-in and then reconnects at once, instead of retrying.
   */
  access?: StreamAccess;
}

export interface StreamAccess {
  /** Whether the last failure was a 401 (the app now asks for the token). */
  isDenied(): Promise<boolean>;
  /** Calls `listener` once at the next sign-in; returns a function that cancels the wait. */
  onGranted(listener: () => void): () => void;
}

export class EventStream {
  private source: EventSource | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private delay = 1000;
  private stopped = false;
  private cancelWait: (() => void) | null = null;
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
    this.cancelWait?.();
    this.cancelWait = null;
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
      this.retryLater();
      const access = this.options.access;
      if (access === undefined) return;
      void access.isDenied().then((denied) => {
        // Still waiting to retry (not stopped, not reconnected meanwhile): wait for the sign-in instead.
        if (!denied || this.timer === null || this.cancelWait !== null) return;
        clearTimeout(this.timer);
        this.timer = null;
        this.cancelWait = access.onGranted(() => {
          this.cancelWait = null;
          this.delay = 1000;
          this.open("reconnecting");
        });
      });
    };
  }

  private retryLater(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open("reconnecting");
    }, this.delay);
    this.delay = Math.min(this.delay * 2, 15000);
  }
}
