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

/** The shared stand-in; the test delivers the run's events and breaks the connection. */

const detail: RunDetail = {
  run: {
    run_id: "r1",
    status: "running",
    phase: "clarify",
    mode: "interactive",
    question: "Welche Dosisgrenzwerte gelten?",
    collections: ["laws"],
    language: "de",
    created_at: "2026-11-23T21:00:00Z",
    updated_at: "2026-11-23T21:00:05Z",
    error: null,
  },
  mode: "interactive",
  overrides: {},
  todo: [],
  interrupt: null,
  warnings: [],
  llm_calls: { clarify_queries: 2, clarify_analysis: 1 },
  last_event: 0,
  result: null,
};

const round = {
  kind: "clarification",
  round: 1,
  questions: ["Which group of persons?"],
  understanding: "Dose limits",
  coverage: 0.5,
  gaps: [],
  queries: ["Grenzwerte"],
  passages: [],
  dedup_ratio: 0,
};

/** A finished research run's result. */
const doseReport: ResearchResult = {
  run_id: "r1",
  question: "Welche Dosisgrenzwerte gelten?",
  language: "en",
  status: "done",
  answerable: true,
  report_markdown: "# Dose limits\n\nWorkers may receive 20 mSv.",
  warnings: [],
};

const posted: Array<{ url: string; body: unknown }> = [];
let refuseSession = false;

beforeEach(() => {
  FakeSource.made = [];
  posted.length = 0;
  refuseSession = false;
  accessGate.reset();
  configureApiClient("http://app.test/research/");
  vi.stubGlobal("EventSource", FakeSource);
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const request = input instanceof Request ? input : new Request(String(input));
      if (refuseSession && new URL(request.url).pathname.endsWith("/api/session"))
        return Response.json({ error: { type: "Unauthorized", message: "missing or wrong token" } }, { status: 401 });
      if (request.method === "POST") {
        posted.push({ url: request.url, body: await request.json() });
        return Response.json({ run_id: "r1", status: "running" }, { status: 202 });
      }
      return Response.json(detail);
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

function renderRun() {
  return renderWithProviders(
    <MemoryRouter initialEntries={["/runs/r1"]}>
      <Routes>
        <Route path="/runs/:runId" element={<RunPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

describe("run page", () => {
  it("follows the run's events from its URL, answers the clarification, and resumes the stream after a break", async () => {
    const user = userEvent.setup();
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    expect(stream.url).toBe("http://app.test/research/api/runs/r1/events?after=0");
    expect(screen.getByTestId("run-llm-calls")).toHaveTextContent("LLM calls: 3");

    stream.send(1, "status", { status: "running", phase: "clarify" });
    stream.send(2, "phase", { phase: "clarify" });
    stream.send(3, "clarification", { round });
    stream.send(4, "interrupt", round);
    stream.send(5, "status", { status: "waiting_for_input", phase: "clarify" });
    expect(screen.getByTestId("run-phase").querySelector('[aria-current="step"]')).toHaveTextContent("Clarify");
    await user.type(screen.getByRole("textbox", { name: "Answer" }), "Workers");
    await user.click(screen.getByRole("button", { name: "Send answer" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({ url: "http://app.test/research/api/runs/r1/resume", body: { answer: "Workers" } });

    // the answer was sent; the connection breaks and comes back from event 5 on
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const before = FakeSource.made.length;
    act(() => FakeSource.made.at(-1)!.onerror?.());
    act(() => vi.advanceTimersByTime(1100));
    vi.useRealTimers();
    expect(FakeSource.made.length).toBe(before + 1);
    const again = FakeSource.made.at(-1)!;
    expect(again.url).toBe("http://app.test/research/api/runs/r1/events?after=5");
    again.send(6, "status", { status: "running", phase: "clarify" });
    again.send(5, "status", { status: "waiting_for_input", phase: "clarify" }); // a repeat: ignored
    // the answer is the user's turn of the chat; the field stays (and keeps the focus) until the phase ends
    await waitFor(() => expect(screen.getByRole("button", { name: "Send answer" })).toBeDisabled());
    expect(screen.getByRole("list", { name: "Conversation" })).toHaveTextContent("YouWorkers");
    again.send(7, "phase", { phase: "plan" });
    expect(screen.getByTestId("run-phase").querySelector('[aria-current="step"]')).toHaveTextContent("Plan");
    expect(screen.queryByRole("textbox", { name: "Answer" })).toBeNull();
  });

  it("refused for the access token mid-run: stops, and after the sign-in continues after its last event", async () => {
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    stream.send(1, "status", { status: "running", phase: "clarify" });
    stream.send(2, "phase", { phase: "clarify" });

    refuseSession = true; // the server restarted with a token: the stream breaks, /api/session says 401
    act(() => stream.onerror?.());
    await waitFor(() => expect(accessGate.isRequired()).toBe(true));
    const made = FakeSource.made.length;
    await act(async () => new Promise((r) => setTimeout(r, 1200))); // longer than the first back-off
    expect(FakeSource.made.length).toBe(made); // waits for the token instead of retrying

    refuseSession = false;
    act(() => accessGate.grant());
    await waitFor(() => expect(FakeSource.made.length).toBe(made + 1));
    expect(FakeSource.made.at(-1)!.url).toBe("http://app.test/research/api/runs/r1/events?after=2");
  });

  it("a report run: edits the outline, then shows a card per section with its grade", async () => {
    const user = userEvent.setup();
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    const outline = {
      kind: "outline",
      topic: "Dose limits",
      title: "Dose limits at work",
      limit: 6,
      round: 0,
      max_rounds: 3,
      sections: [
        { id: "s1", title: "Introduction", description: "", research: false, questions: [] },
        { id: "s2", title: "Limits", description: "", research: true, questions: ["Which limits?"] },
      ],
    };
    stream.send(1, "status", { status: "running", phase: "outline" });
    stream.send(2, "phase", { phase: "outline" });
    stream.send(3, "outline", { sections: outline.sections, round: 0 });
    stream.send(4, "interrupt", outline);
    stream.send(5, "status", { status: "waiting_for_input", phase: "outline" });
    expect(screen.getByTestId("run-phase").querySelector('[aria-current="step"]')).toHaveTextContent("Outline");
    const form = await screen.findByTestId("outline-form");
    expect(form).toHaveTextContent("Dose limits at work");
    await user.click(screen.getByRole("button", { name: "Move section 2 up" }));
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]!.body).toEqual({
      action: "edit",
      sections: [
        { id: "s2", title: "Limits", description: "", research: true },
        { id: "s1", title: "Introduction", description: "", research: false },
      ],
    });

    stream.send(6, "status", { status: "running", phase: "outline" });
    stream.send(7, "phase", { phase: "sections" });
    stream.send(8, "section", { section_id: "s1", title: "Limits", state: "researching", round: 1, refinement: 0 });
    stream.send(9, "section", { section_id: "s1", title: "Limits", state: "graded", passed: false, round: 1 });
    await waitFor(() => expect(screen.queryByTestId("outline-form")).toBeNull());
    const cards = screen.getAllByTestId("section-progress");
    expect(cards).toHaveLength(1);
    expect(cards[0]).toHaveTextContent("Limits");
    expect(cards[0]).toHaveTextContent("grade failed");
    stream.send(10, "section", { section_id: "s1", title: "Limits", state: "done", passed: true, evidence: 4 });
    expect(screen.getByTestId("section-progress")).toHaveTextContent("grade passed");
    expect(screen.getByTestId("section-progress")).toHaveTextContent("4 findings");
  });

  it("a research run: shows the sections as the model writes them, marked as a draft, until the checked report", async () => {
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    const claims = (texts: string[]) => texts.map((text, i) => ({ text, evidence_ids: i === 0 ? ["t1-b1-e1", "t1-b1-e2"] : [] }));
    stream.send(1, "status", { status: "running", phase: "dig" });
    stream.send(2, "phase", { phase: "synthesize" });
    expect(screen.queryByTestId("draft-report")).toBeNull();
    stream.send(3, "draft_section", { index: 1, heading: "Organ doses", task_id: "t2", attempt: 1, truncated: false, claims: claims(["The lens limit is 20 mSv."]) });
    stream.send(4, "draft_section", { index: 0, heading: "Workers", task_id: "t1", attempt: 1, truncated: true, claims: claims(["Workers may receive 20 mSv.", "It is checked."]) });

    const draft = screen.getByTestId("draft-report");
    expect(draft).toHaveTextContent("Being written; the checked report follows.");
    const sections = within(draft).getAllByTestId("draft-section");
    expect(sections.map((s) => within(s).getByRole("heading").textContent)).toEqual(["Workers", "Organ doses"]);
    expect(sections[0]).toHaveTextContent("cut off at its output limit");
    const sentences = within(sections[0]!).getAllByRole("listitem");
    expect(sentences[0]).toHaveTextContent("Workers may receive 20 mSv. checking sources");
    expect(within(sentences[0]!).getByText("checking sources")).toHaveAttribute("title", expect.stringContaining("Cites 2 pieces of evidence"));
    expect(sentences[1]).toHaveTextContent("It is checked. no source");
    // no source links yet: the events carry evidence ids, which only the checked report maps to pages
    expect(within(draft).queryAllByRole("button")).toHaveLength(0);

    // the remediation pass rewrites a section: the rewrite replaces its first version
    stream.send(5, "draft_section", { index: 1, heading: "Organ doses", task_id: "t2", attempt: 2, truncated: false, claims: claims(["The lens limit is 20 mSv per year."]) });
    const rewritten = within(screen.getByTestId("draft-report")).getAllByTestId("draft-section")[1]!;
    expect(rewritten).toHaveTextContent("rewritten after the checks");
    expect(rewritten).toHaveTextContent("The lens limit is 20 mSv per year.");
    expect(screen.getByTestId("draft-report")).not.toHaveTextContent("The lens limit is 20 mSv. ");

    const result = {
      run_id: "r1",
      question: "Welche Dosisgrenzwerte gelten?",
      language: "en",
      status: "done",
      answerable: true,
      report_markdown: "# Dose limits\n\n## Workers\n\nWorkers may receive 20 mSv [1].\n\n## Sources\n\n[1] StrlSchG.pdf",
      sources: [{ n: 1, evidence_id: "t1-b1-e1", collection: "laws", document: "StrlSchG.pdf", page: 41, quote: "20 Millisievert", start: 0, end: 15 }],
    };
    stream.send(6, "report", { result });
    stream.send(7, "done", { status: "done" });
    const report = await screen.findByTestId("report");
    expect(screen.queryByTestId("draft-report")).toBeNull();
    expect(within(report).getByRole("button", { name: "Citation 1: open the source" })).toBeInTheDocument();
  });

  it("has one Warnings box: the report's, with the run's warnings it does not hold", async () => {
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    stream.send(1, "status", { status: "running", phase: "dig" });
    stream.send(2, "warning", { message: "task t2 found no evidence" });
    stream.send(3, "warning", { message: "1 citation(s) are weakly supported" });
    expect(screen.getAllByText(/^Warnings \(/)).toHaveLength(1);
    const result = { ...doseReport, warnings: ["1 citation(s) are weakly supported"] };
    stream.send(4, "report", { result });
    stream.send(5, "done", { status: "done" });
    await screen.findByTestId("report");
    const boxes = screen.getAllByText(/^Warnings \(/);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]).toHaveTextContent("Warnings (2)");
    const box = boxes[0]!.closest("details")!;
    expect(within(box).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "1 citation(s) are weakly supported",
      "task t2 found no evidence",
    ]);
  });

  it("a finished run opened again shows its report while the stream replays its older events", async () => {
    const finished: RunDetail = {
      ...detail,
      run: { ...detail.run, status: "done", phase: "done" },
      last_event: 40,
      result: doseReport,
    };
    vi.stubGlobal("fetch", vi.fn(async () => Response.json(finished)));
    renderRun();
    await screen.findByRole("heading", { name: "Dose limits" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    stream.send(1, "status", { status: "running", phase: "dig" });
    stream.send(2, "warning", { message: "task t2 found no evidence" });

    expect(screen.getByRole("tab", { name: "Report" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("heading", { name: "Dose limits" })).toBeVisible();
    expect(screen.queryByTestId("run-todo")).toBeNull();
  });

  it("a run that stops while writing says its drafts were not checked", async () => {
    renderRun();
    await screen.findByRole("heading", { name: "Welche Dosisgrenzwerte gelten?" });
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(0));
    const stream = FakeSource.made.at(-1)!;
    stream.send(1, "status", { status: "running", phase: "synthesize" });
    stream.send(2, "draft_section", { index: 0, heading: "Workers", task_id: "t1", attempt: 1, truncated: false, claims: [{ text: "Workers may receive 20 mSv.", evidence_ids: ["t1-b1-e1"] }] });
    stream.send(3, "error", { message: "Ollama is not reachable" });
    const draft = screen.getByTestId("draft-report");
    expect(draft).toHaveTextContent("The run stopped before the checked report: these sections were not checked.");
    expect(draft).not.toHaveTextContent("Being written");
  });
});
