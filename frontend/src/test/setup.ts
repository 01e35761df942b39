import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

/**
 * Component tests never reach the network. A request no test answered (a test answers with
 * `vi.stubGlobal("fetch", ...)`) fails at once, as a network error would, and fails its test: a real request
 * to the test host took tens of milliseconds to fail, so the test's outcome depended on the machine's load.
 */
const unanswered: string[] = [];
globalThis.fetch = ((input: RequestInfo | URL) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  unanswered.push(url);
  return Promise.reject(new TypeError(`component tests do not reach the network (${url})`));
}) as typeof fetch;

afterEach(() => {
  cleanup();
  const reached = unanswered.splice(0);
  if (reached.length) throw new Error(`the test sent requests nothing answered: ${reached.join(", ")}`);
});
