import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { ApiError } from "../../../shared/api/errors";
import { accessGate } from "../../../shared/auth/accessGate";
import { forgetCsrfToken, setCsrfToken } from "../../../shared/auth/csrf";
import { uploadDocument } from "./uploadDocument";

/** XMLHttpRequest stand-in: each request is answered with the next status the test queued. */
class FakeXhr {
  static sent: FakeXhr[] = [];
  static answers: Array<{ status: number; body: unknown }> = [];
  method = "";
  url = "";
  status = 0;
  responseText = "";
  responseType = "";
  upload: { onprogress: ((e: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  private loadend: Array<() => void> = [];
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  addEventListener(_type: "loadend", fn: () => void) {
    this.loadend.push(fn);
  }
  send() {
    FakeXhr.sent.push(this);
    const answer = FakeXhr.answers.shift() ?? { status: 500, body: {} };
    setTimeout(() => {
      this.status = answer.status;
      this.responseText = JSON.stringify(answer.body);
      this.onload?.();
      for (const fn of this.loadend) fn();
    }, 0);
  }
  abort() {
    this.onabort?.();
  }
}

const job = { job_id: "j1", collection: "laws", status: "queued", files: [] };
const refused = { status: 401, body: { error: { type: "Unauthorized", message: "missing or wrong token" } } };

beforeEach(() => {
  FakeXhr.sent = [];
  FakeXhr.answers = [];
  accessGate.reset();
  configureApiClient("http://app.test/");
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  // a server without accounts gives no CSRF token; unknown, the upload would first ask the (unreachable)
  // test host for it over the network and send later than the test looks
  setCsrfToken(null);
});
afterEach(() => {
  vi.unstubAllGlobals();
  forgetCsrfToken();
});

const pdf = () => new File(["%PDF-1.4"], "a.pdf", { type: "application/pdf" });
const settle = () => new Promise((r) => setTimeout(r, 10));

describe("upload", () => {
  it("refused for the token: asks for it and sends the file again once it is given", async () => {
    FakeXhr.answers = [refused, { status: 202, body: job }];
    const progress: number[] = [];
    const done = uploadDocument("laws", pdf(), (p) => progress.push(p));
    await vi.waitFor(() => expect(accessGate.isRequired()).toBe(true));
    expect(FakeXhr.sent).toHaveLength(1); // waits: no second try before the sign-in
    accessGate.grant();
    await expect(done).resolves.toEqual(job);
    expect(FakeXhr.sent).toHaveLength(2);
    expect(FakeXhr.sent[1]!.url).toBe("http://app.test/api/collections/laws/documents");
    expect(progress.at(-1)).toBe(1);
  });

  it("cancelled while waiting for the token: rejects without sending again", async () => {
    FakeXhr.answers = [refused];
    const abort = new AbortController();
    const done = uploadDocument("laws", pdf(), () => {}, abort.signal);
    await vi.waitFor(() => expect(accessGate.isRequired()).toBe(true));
    abort.abort();
    await expect(done).rejects.toMatchObject({ type: "Aborted" });
    accessGate.grant();
    await settle();
    expect(FakeXhr.sent).toHaveLength(1);
  });

  it("other refusals are the API's error", async () => {
    FakeXhr.answers = [{ status: 413, body: { error: { type: "RequestTooLarge", message: "too large" } } }];
    const failure = await uploadDocument("laws", pdf(), () => {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 413, type: "RequestTooLarge" });
    expect(accessGate.isRequired()).toBe(false);
  });
});
