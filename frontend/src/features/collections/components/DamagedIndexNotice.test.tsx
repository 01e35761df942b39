import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { DamagedIndexNotice } from "./DamagedIndexNotice";

const REASON =
  "the vector index of collection 'laws' is damaged (reading it crashed the process (signal 11)); rebuild it";

/** The rebuild route and its job: running after the first poll, done after the second. */
const server = {
  calls: [] as string[],
  polls: 0,
  async handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    server.calls.push(`${request.method} ${path}`);
    const job = (status: "running" | "done", done: number) => ({
      id: "j1",
      collection: "laws",
      status,
      done,
      total: 2,
      files: [
        { file_name: "AtG.pdf", status: done > 0 ? "ingested" : "pending", reason: null },
        { file_name: "StrlSchG.pdf", status: done > 1 ? "ingested" : "pending", reason: null },
      ],
      error: null,
    });
    if (path === "/api/collections/laws/rebuild" && request.method === "POST")
      return Response.json(job("running", 0), { status: 202 });
    if (path === "/api/jobs/j1") {
      server.polls += 1;
      return Response.json(server.polls === 1 ? job("running", 1) : job("done", 2));
    }
    return Response.json({ error: { type: "HTTPError", message: "Not Found" } }, { status: 404 });
  },
};

beforeEach(() => {
  configureApiClient("http://app.test/");
  server.calls = [];
  server.polls = 0;
  vi.stubGlobal("fetch", vi.fn(async (input: Request) => server.handle(input)));
});
afterEach(() => vi.unstubAllGlobals());

describe("a damaged vector index", () => {
  it("says why and rebuilds the collection's vectors, showing the progress", async () => {
    renderWithProviders(<DamagedIndexNotice collection="laws" reason={REASON} />);
    const notice = screen.getByTestId("damaged-index");
    expect(notice).toHaveTextContent("The vector index of this collection is damaged");
    expect(notice).toHaveTextContent("crashed the process (signal 11)");

    await userEvent.click(screen.getByRole("button", { name: "Rebuild the vector index" }));
    expect(await screen.findByRole("button", { name: /Rebuilding… 1 of 2 documents/ })).toBeDisabled();
    await waitFor(() => expect(server.calls).toContain("POST /api/collections/laws/rebuild"), { timeout: 3000 });
    await waitFor(() => expect(server.polls).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    expect(await screen.findByRole("button", { name: "Rebuild the vector index" })).toBeEnabled();
  });

  it("speaks German", () => {
    renderWithProviders(<DamagedIndexNotice collection="laws" reason={REASON} />, "de");
    expect(screen.getByRole("button", { name: "Vektorindex neu aufbauen" })).toBeInTheDocument();
  });
});
