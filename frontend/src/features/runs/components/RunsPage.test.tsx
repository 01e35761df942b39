import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunSummary } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { RunsPage } from "./RunsPage";

const run = (id: string, question: string, status: RunSummary["status"], seconds: number): RunSummary => ({
  run_id: id,
  status,
  phase: "",
  mode: "quick",
  question,
  collections: ["akte"],
  language: "de",
  created_at: "2026-01-01T10:00:00Z",
  updated_at: new Date(Date.parse("2026-01-01T10:00:00Z") + seconds * 1000).toISOString(),
});

/** The runs API: GET filters by `status` and `q` as the server does; DELETE forgets a run. */
const server = {
  runs: [] as RunSummary[],
  requests: [] as string[],
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    server.requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (request.method === "DELETE") {
      const id = url.pathname.split("/").pop();
      server.runs = server.runs.filter((r) => r.run_id !== id);
      return Response.json({ run_id: id, deleted: true });
    }
    const statuses = url.searchParams.getAll("status");
    const q = (url.searchParams.get("q") ?? "").toLowerCase();
    const items = server.runs.filter(
      (r) => (statuses.length === 0 || statuses.includes(r.status)) && r.question.toLowerCase().includes(q),
    );
    return Response.json({ items, total: items.length, limit: 50, offset: 0 });
  },
};

beforeEach(() => {
  configureApiClient("http://app.test/");
  server.requests = [];
  server.runs = [
    run("r1", "Welche Grenzwerte gelten?", "done", 65),
    run("r2", "Wer genehmigt die Anzeige?", "cancelled", 3725),
    run("r3", "Was gilt für Grenzwerte der Bevölkerung?", "running", 10),
  ];
  vi.stubGlobal("fetch", vi.fn(async (request: Request) => server.handle(request)));
});
afterEach(() => vi.unstubAllGlobals());

function page() {
  return renderWithProviders(
    <MemoryRouter>
      <RunsPage />
    </MemoryRouter>,
  );
}

const questions = () => screen.getAllByRole("link").map((a) => a.textContent).filter((q) => q !== "New run");

describe("the runs list", () => {
  it("shows how long each finished run took", async () => {
    page();
    const row = (await screen.findByText("Welche Grenzwerte gelten?")).closest("tr") as HTMLElement;
    expect(row).toHaveTextContent("1:05");
    const cancelled = screen.getByText("Wer genehmigt die Anzeige?").closest("tr") as HTMLElement;
    expect(cancelled).toHaveTextContent("1:02:05");
    expect(screen.getByRole("columnheader", { name: "Duration" })).toBeInTheDocument();
  });

  it("searches the questions and filters by status", async () => {
    page();
    await screen.findByText("Welche Grenzwerte gelten?");
    await userEvent.type(screen.getByLabelText("Search the questions"), "grenzwerte");
    await waitFor(() => expect(questions()).toEqual(["Welche Grenzwerte gelten?", "Was gilt für Grenzwerte der Bevölkerung?"]));
    await userEvent.selectOptions(screen.getByLabelText("Status"), "running");
    await waitFor(() => expect(questions()).toEqual(["Was gilt für Grenzwerte der Bevölkerung?"]));
    expect(server.requests).toContain("GET /api/runs?limit=50&status=running&q=grenzwerte");
    await userEvent.selectOptions(screen.getByLabelText("Status"), "error");
    expect(await screen.findByText("No run matches the search or the status.")).toBeInTheDocument();
  });

  it("deletes a run after a confirmation, and keeps it when the user declines", async () => {
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    page();
    await screen.findByText("Welche Grenzwerte gelten?");
    const remove = screen.getByRole("button", { name: "Delete the run “Welche Grenzwerte gelten?”" });
    await userEvent.click(remove);
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(server.requests.some((r) => r.startsWith("DELETE"))).toBe(false);
    confirm.mockReturnValue(true);
    await userEvent.click(remove);
    await waitFor(() => expect(server.requests).toContain("DELETE /api/runs/r1"));
    await waitFor(() => expect(screen.queryByText("Welche Grenzwerte gelten?")).not.toBeInTheDocument());
    expect(within(screen.getByRole("table")).getAllByRole("row")).toHaveLength(3);
  });
});
