import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResearchResult, RunDetail } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { accessGate } from "../../../shared/auth/accessGate";
import { FakeRunStream as FakeSource } from "../../../test/fakeRunStream";
import { renderWithProviders } from "../../../test/render";
import { RunPage } from "./RunPage";

/** The run page's layout and states: a finished run's report first, terminal states, waiting, focus. */

const result = {
  run_id: "r1",
  question: "Welche Dosisgrenzwerte gelten?",
  language: "en",
  status: "done",
  answerable: true,
  report_markdown: "# Dose limits\n\nWorkers may receive 20 mSv [1].\n\n## Sources\n\n[1] StrlSchG.pdf",
  sources: [{ n: 1, evidence_id: "t1-b1-e1", collection: "laws", document: "StrlSchG.pdf", page: 41, quote: "20 Millisievert", start: 0, end: 15 }],
} as unknown as ResearchResult;

let detail: RunDetail;

function runDetail(question: string, status: RunDetail["run"]["status"], withResult: boolean): RunDetail {
  return {
    run: {
      run_id: "r1",
      status,
      phase: "dig",
      mode: "interactive",
      question,
      collections: ["laws"],
      language: "en",
      created_at: "2026-11-23T21:00:00Z",
      updated_at: "2026-11-23T21:00:05Z",
      error: null,
    },
    mode: "interactive",
    overrides: {},
    todo: [],
    interrupt: null,
    warnings: [],
    llm_calls: {},
    last_event: 0,
    result: withResult ? result : null,
  };
}

const TASKS = [
  { id: "t1", title: "Limits for workers", state: "done" },
  { id: "t2", title: "Organ doses", state: "running" },
  { id: "t3", title: "Apprentices", state: "pending" },
];

beforeEach(() => {
  FakeSource.made = [];
  detail = runDetail("Welche Dosisgrenzwerte gelten?", "running", false);
  accessGate.reset();
  configureApiClient("http://app.test/");
  vi.stubGlobal("EventSource", FakeSource);
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const request = input instanceof Request ? input : new Request(String(input));
      if (new URL(request.url).pathname.endsWith("/pages")) return Response.json([]);
      return Response.json(detail);
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

async function renderRun(path = "/runs/r1"): Promise<FakeSource> {
  renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/runs/:runId" element={<RunPage />} />
      </Routes>
    </MemoryRouter>,
  );
  await screen.findByRole("heading", { level: 1 });
  await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
  return FakeSource.made.at(-1)!;
}

/** The events of a run that dug three tasks and was stopped by ``ending`` while t2 ran. */
function digThenStop(stream: FakeSource, ending: Array<[string, Record<string, unknown>]>) {
  stream.send(1, "status", { status: "running", phase: "clarify" });
  stream.send(2, "phase", { phase: "clarify" });
  stream.send(3, "phase", { phase: "plan" });
  stream.send(4, "phase", { phase: "dig" });
  stream.send(5, "todo", { tasks: TASKS });
  stream.send(6, "task_progress", { task_id: "t2", step: "extracting", state: "running" });
  ending.forEach(([type, fields], i) => stream.send(7 + i, type, fields));
}

function phaseStates(): Record<string, string> {
  const items = within(screen.getByTestId("run-phase")).getAllByRole("listitem");
  return Object.fromEntries(items.map((li) => [li.querySelector(".phase-name")!.textContent!, li.querySelector(".phase-state")!.textContent!]));
}

describe("run page states", () => {
  it("a finished run opens on its report; the way there is the other tab, and the tab stops before the report are the header's", async () => {
    detail = runDetail("Welche Dosisgrenzwerte gelten?", "done", true);
    const user = userEvent.setup();
    const stream = await renderRun();
    digThenStop(stream, [
      ["report", { result }],
      ["status", { status: "done", phase: "done" }],
      ["done", { status: "done" }],
    ]);
    const report = await screen.findByTestId("report");
    const reportTab = screen.getByRole("tab", { name: "Report" });
    const howTab = screen.getByRole("tab", { name: "How it was researched" });
    expect(reportTab).toHaveAttribute("aria-selected", "true");
    expect(report).toBeVisible();
    expect(screen.getByTestId("run-todo")).not.toBeVisible();

    // Tab from the page's start: the header's controls, the selected tab, then the report
    const stops: string[] = [];
    for (let i = 0; i < 4 && !report.contains(document.activeElement); i++) {
      await user.tab();
      stops.push(document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "");
    }
    expect(stops).toHaveLength(3);
    expect(stops.slice(0, 2)).toEqual(["Delete run", "Report"]);
    expect(report.contains(document.activeElement)).toBe(true); // the third stop is in the report

    await user.click(howTab);
    expect(howTab).toHaveAttribute("aria-selected", "true");
    expect(screen.getByTestId("run-todo")).toBeVisible();
    expect(report).not.toBeVisible();
    await user.keyboard("{ArrowLeft}");
    expect(reportTab).toHaveFocus();
    expect(report).toBeVisible();
  });

  it("after a cancel no phase or task says running, replayed or live", async () => {
    const stream = await renderRun();
    digThenStop(stream, []);
    expect(within(screen.getByTestId("run-todo")).getByText("running")).toBeInTheDocument();
    expect(screen.getByRole("progressbar", { name: "Progress of Organ doses" })).toBeInTheDocument();
    stream.send(7, "status", { status: "cancelled", phase: "dig" });
    stream.send(8, "done", { status: "cancelled" });

    const todo = screen.getByTestId("run-todo");
    expect(todo).not.toHaveTextContent("running");
    expect(within(todo).getAllByRole("listitem").map((li) => li.querySelector(".badge")!.textContent)).toEqual([
      "done",
      "cancelled",
      "not started",
    ]);
    expect(screen.queryByRole("progressbar")).toBeNull();
    expect(todo.querySelector("[aria-current]")).toBeNull();
    const phases = phaseStates();
    expect(phases["Clarify"]).toMatch(/^done/);
    expect(phases["Research"]).toMatch(/^cancelled · /);
    expect(phases["Write"]).toBe("not started");
    expect(screen.getByTestId("run-phase").querySelector("[aria-current]")).toBeNull();
  });

  it("a failed run says failed where it stopped", async () => {
    const stream = await renderRun();
    digThenStop(stream, [
      ["status", { status: "error", phase: "dig", error: "Ollama is not reachable" }],
      ["error", { message: "Ollama is not reachable" }],
    ]);
    expect(screen.getByTestId("run-todo")).not.toHaveTextContent("running");
    expect(phaseStates()["Research"]).toMatch(/^failed · /);
    expect(within(screen.getByTestId("run-todo")).getAllByText("failed")).toHaveLength(1);
  });

  it("a phase waiting for the user says so and its timer stops; the plan form gets the focus", async () => {
    const stream = await renderRun();
    stream.send(1, "status", { status: "running", phase: "clarify" });
    stream.send(2, "phase", { phase: "clarify" });
    stream.send(3, "phase", { phase: "plan" });
    const plan = { kind: "plan", question: "q", limit: 8, tasks: [{ id: "t1", title: "Limits for workers" }] };
    stream.send(7, "interrupt", plan);
    stream.send(8, "status", { status: "waiting_for_input", phase: "plan" });
    expect(phaseStates()["Plan"]).toBe("waiting for you · 0:04");
    await act(async () => new Promise((r) => setTimeout(r, 1100)));
    expect(phaseStates()["Plan"]).toBe("waiting for you · 0:04");
    expect(await screen.findByRole("heading", { name: "Research plan" })).toHaveFocus();
    expect(screen.getByTestId("run-announcer")).toHaveTextContent("The research plan is ready for your review.");
  });

  it("a clarification round moves the focus to its answer and is announced", async () => {
    const stream = await renderRun();
    stream.send(1, "status", { status: "running", phase: "clarify" });
    stream.send(2, "phase", { phase: "clarify" });
    expect(screen.getByTestId("run-announcer")).toHaveTextContent("Phase: Clarify");
    const round = { kind: "clarification", round: 1, questions: ["Which group of persons?"], understanding: "u", coverage: 0.5, gaps: [], queries: [], passages: [], dedup_ratio: 0 };
    stream.send(3, "clarification", { round });
    stream.send(4, "interrupt", round);
    await waitFor(() => expect(screen.getByRole("textbox", { name: "Answer" })).toHaveFocus());
    expect(screen.getByTestId("run-announcer")).toHaveTextContent("New questions, round 1: Which group of persons?");
  });

  it("clamps a long question, with a toggle that shows it whole", async () => {
    detail = runDetail("Welche Grenzwerte gelten? ".repeat(400), "running", false);
    const user = userEvent.setup();
    await renderRun();
    const heading = screen.getByRole("heading", { level: 1 });
    expect(heading).toHaveClass("clamped");
    const toggle = screen.getByRole("button", { name: "Show the whole question" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.click(toggle);
    expect(heading).not.toHaveClass("clamped");
    expect(screen.getByRole("button", { name: "Show less of the question" })).toHaveAttribute("aria-expanded", "true");
  });
});
