import { getSession } from "../../api/generated/sdk.gen";
import { ApiError } from "../api/errors";

type Listener = () => void;

/**
 * Whether the server refused the app for want of its token (server.token; answered 401), and the moment
 * the token is given again. Whatever meets a 401 (the generated client's interceptor, the event streams,
 * the upload, the PDF viewer) calls `deny()`: the app asks for the token (AccessTokenDialog). Signing in
 * calls `grant()`: the waiting work goes on (a stream reconnects, an upload is sent again, queries refetch).
 */
export class AccessGate {
  private required = false;
  private grants = 0;
  private readonly watchers = new Set<Listener>();
  private readonly waiting = new Set<Listener>();

  /** Whether the app must ask for the token now. */
  readonly isRequired = (): boolean => this.required;

  /** How many times the token was given (a dependency that changes after each sign-in). */
  readonly grantCount = (): number => this.grants;

  /** Calls `listener` after every change of isRequired or grantCount (useSyncExternalStore). */
  readonly subscribe = (listener: Listener): (() => void) => {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  };

  /** A request was answered 401: ask for the token. */
  deny(): void {
    if (this.required) return;
    this.required = true;
    this.notify();
  }

  /** The token was accepted: stop asking and let everything waiting for it go on. */
  grant(): void {
    this.required = false;
    this.grants += 1;
    this.notify();
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const listener of waiting) listener();
  }

  /** Calls `listener` once, at the next grant; returns a function that cancels the wait. */
  onGranted(listener: Listener): () => void {
    this.waiting.add(listener);
    return () => this.waiting.delete(listener);
  }

  /** Resolves at the next grant; rejects with an "Aborted" ApiError when `signal` aborts first. */
  whenGranted(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const aborted = () => {
        cancel();
        reject(new ApiError(0, { type: "Aborted", message: "cancelled while waiting for the access token" }));
      };
      const cancel = this.onGranted(() => {
        signal?.removeEventListener("abort", aborted);
        resolve();
      });
      if (signal?.aborted) aborted();
      else signal?.addEventListener("abort", aborted, { once: true });
    });
  }

  /**
   * After a failure that says no status (an EventSource error): asks GET /api/session whether the token or
   * the sign-in is the problem. True when it is (a 401: the interceptor has called deny(); accounts mode and
   * nobody signed in: deny() is called here); false for anything else.
   */
  async isDenied(): Promise<boolean> {
    try {
      const { data, response } = await getSession();
      if (response?.status === 401) return true;
      if (data?.auth === "accounts" && !data.user) {
        this.deny();
        return true;
      }
      return false;
    } catch {
      return false;
    }
  }

  /** Back to the start (tests). */
  reset(): void {
    this.required = false;
    this.grants = 0;
    this.waiting.clear();
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.watchers]) listener();
  }
}

/** The app's one gate: the generated client, the event streams, the upload and the viewer share it. */
export const accessGate = new AccessGate();
