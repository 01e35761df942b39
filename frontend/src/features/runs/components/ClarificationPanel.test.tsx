import { render, screen, within } from "@testing-library/react";
import type { ReactElement, ReactNode } from "react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { I18nProvider, type Language } from "../../../shared/i18n/i18n";
import { parseRunEvent } from "../events/parse";
import { foldEvents } from "../events/reducer";
import type { ClarificationRound, ResumeBody, RunEvent } from "../events/types";
import { ClarificationPanel } from "./ClarificationPanel";

let clock = Date.parse("2026-11-24T00:20:00Z");
function ev(seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent {
  clock += 1000;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r5", seq, created_at: new Date(clock).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

const ROUND_1: ClarificationRound = {
  round: 1,
  questions: ["Which group of persons?", "Effective or organ dose?"],
  understanding: "Dose limits for occupationally exposed persons",
  coverage: 0.6,
  gaps: ["apprentices"],
  queries: ["Grenzwerte beruflich exponierte Personen"],
  passages: [
    { chunk_id: "c9", collection: "laws", document: "StrlSchG.pdf", page: 41, page_end: 41, section: "§ 78", score: 0.83, snippet: "Der Grenzwert der effektiven Dosis", start: 120, end: 160 },
  ],
  dedup_ratio: 0.2,
  answer: null,
};
const ROUND_2: ClarificationRound = {
  ...ROUND_1,
  round: 2,
  questions: ["Per year or over a working life?", "Including apprentices?"],
  understanding: "Effective dose limits for workers",
  coverage: 0.75,
};

const asked = (seq: number, round: ClarificationRound): RunEvent[] => [
  ev(seq, "clarification", { round }),
  ev(seq + 1, "interrupt", { kind: "clarification", ...round }),
  ev(seq + 2, "status", { status: "waiting_for_input" }),
];
const progress = (seq: number, round: number, step: string, fields: Record<string, unknown> = {}) =>
  ev(seq, "clarification_progress", { round, step, queries: 0, searched: 0, passages: 0, ...fields });

/** The run's first round asked: status, phase, the search's progress, the round. */
const FIRST: RunEvent[] = [
  ev(1, "status", { status: "running", phase: "clarify" }),
  progress(2, 1, "planning"),
  progress(3, 1, "searching", { queries: 1, searched: 1, passages: 4 }),
  progress(4, 1, "analyzing", { queries: 1, searched: 1, passages: 4 }),
  ...asked(5, ROUND_1),
];
/** The answer given; round 2 prepared. */
const ANSWERED: RunEvent[] = [
  ev(8, "status", { status: "running" }),
  ev(9, "clarification_answer", { round: 1, answer: "Only workers", ended: false }),
  progress(10, 2, "planning"),
  progress(11, 2, "searching", { queries: 3, searched: 2, passages: 12 }),
];

/** The panel as the run page shows it: from the run's events (and the answer's request state). */
function Chat({ events, onAnswer, pending = false, failed = false }: { events: RunEvent[]; onAnswer: (body: ResumeBody) => void; pending?: boolean; failed?: boolean }) {
  const view = foldEvents(events);
  const interrupt = view.interrupt?.kind === "clarification" ? view.interrupt : null;
  return (
    <ClarificationPanel
      interrupt={interrupt}
      history={view.clarifications}
      activity={view.clarifyActivity}
      clarifying={view.phase === "clarify" && (view.status === "running" || view.status === "waiting_for_input")}
      onAnswer={onAnswer}
      pending={pending}
      failed={failed}
    />
  );
}

/** Renders `ui` in `language`; `rerender` keeps the language (the run page's events arrive as props). */
function renderWithProviders(ui: ReactElement, language: Language = "en") {
  const wrapper = ({ children }: { children: ReactNode }) => <I18nProvider language={language}>{children}</I18nProvider>;
  return render(ui, { wrapper });
}

function turns(): { speaker: string; text: string }[] {
  return within(screen.getByRole("list", { name: "Conversation" }))
    .getAllByTestId(/clarify-(turn|activity)/)
    .map((li) => ({ speaker: li.querySelector(".speaker")?.textContent ?? "", text: li.textContent ?? "" }));
}

describe("the clarification chat", () => {
  it("shows the round: questions, understanding, coverage, gaps and what the documents returned", () => {
    renderWithProviders(<Chat events={FIRST} onAnswer={vi.fn()} />);
    expect(screen.getByText("Which group of persons?")).toBeInTheDocument();
    expect(screen.getByText("Dose limits for occupationally exposed persons")).toBeInTheDocument();
    expect(screen.getByText("apprentices")).toBeInTheDocument();
    expect(screen.getByText(/StrlSchG\.pdf, p\. 41, § 78/)).toBeInTheDocument();
    expect(screen.getByText(/duplicates removed: 20 %/)).toBeInTheDocument();
    expect(screen.getByRole("meter", { name: "Coverage" })).toHaveValue(0.6);
    expect(turns().map((t) => t.speaker)).toEqual(["Rabbithole"]);
    expect(screen.getByRole("status")).toHaveTextContent("Round 1: new questions (2)");
  });

  it("shows the search's progress before the first question", () => {
    renderWithProviders(<Chat events={FIRST.slice(0, 3)} onAnswer={vi.fn()} />);
    const activity = screen.getByTestId("clarify-activity");
    expect(activity).toHaveTextContent("Searching your documents: 1 of 1 queries, passages found: 4");
    expect(screen.getByRole("status")).toHaveTextContent("Searching your documents…");
    expect(screen.queryByRole("textbox", { name: "Answer" })).toBeNull(); // nothing to answer yet
  });

  it("sends with Enter, keeps the focus in the field, shows the answer as the user's turn, then the activity", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    const { rerender } = renderWithProviders(<Chat events={FIRST} onAnswer={onAnswer} />);
    const field = screen.getByRole("textbox", { name: "Answer" });
    expect(field).toHaveAccessibleDescription("Enter sends, Shift+Enter starts a new line.");
    expect(screen.getByRole("button", { name: "Send answer" })).toBeDisabled();
    await user.type(field, "  Only workers{Shift>}{Enter}{/Shift}of nuclear plants  ");
    expect(onAnswer).not.toHaveBeenCalled();
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ answer: "Only workers\nof nuclear plants" });
    expect(field).toHaveValue("");
    expect(field).toHaveFocus();
    expect(turns().map((t) => t.speaker)).toEqual(["Rabbithole", "You"]);
    expect(turns()[1]!.text).toContain("Only workers\nof nuclear plants");
    expect(turns()[1]!.text).toContain("Sending…");
    expect(screen.getByRole("button", { name: "Send answer" })).toBeDisabled(); // one answer per round

    rerender(<Chat events={[...FIRST, ...ANSWERED]} onAnswer={onAnswer} />);
    expect(turns().map((t) => t.text)).toEqual([
      expect.stringContaining("Which group of persons?"),
      "YouOnly workers",
      expect.stringContaining("Searching your documents: 2 of 3 queries, passages found: 12"),
    ]);
    expect(screen.getByRole("progressbar", { name: "Queries searched" })).toHaveAttribute("value", "2");
    expect(field).toHaveFocus(); // still there, while the next questions are prepared
    expect(field).toHaveAccessibleDescription("You can send your answer once the next questions are here.");

    const withRound2 = [...FIRST, ...ANSWERED, progress(12, 2, "analyzing", { queries: 3, searched: 3, passages: 8 })];
    rerender(<Chat events={withRound2} onAnswer={onAnswer} />);
    expect(screen.getByTestId("clarify-activity")).toHaveTextContent("Reading 8 passages and writing the next questions…");
    rerender(<Chat events={[...withRound2, ...asked(13, ROUND_2)]} onAnswer={onAnswer} />);
    expect(screen.queryByTestId("clarify-activity")).toBeNull();
    expect(screen.getByRole("heading", { name: "Round 2" })).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Round 2: new questions (2)");
    await user.type(field, "Per year{Control>}{Enter}{/Control}");
    expect(onAnswer).toHaveBeenLastCalledWith({ answer: "Per year" });
  });

  it("leaves a turn for 'enough, start the research' and shows the research question being fixed", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    const { rerender } = renderWithProviders(<Chat events={FIRST} onAnswer={onAnswer} />);
    await user.click(screen.getByRole("button", { name: "Enough, start the research" }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ answer: "/end" });
    expect(turns()[1]).toMatchObject({ speaker: "You", text: expect.stringContaining("Enough, start the research.") });
    expect(screen.queryByRole("textbox", { name: "Answer" })).toBeNull();
    expect(screen.getByRole("heading", { name: "Clarification" })).toHaveFocus();

    const ended = [
      ...FIRST,
      ev(8, "status", { status: "running" }),
      ev(9, "clarification_answer", { round: 1, answer: "/end", ended: true }),
      progress(10, 1, "anchoring"),
    ];
    rerender(<Chat events={ended} onAnswer={onAnswer} />);
    expect(turns().map((t) => t.text)).toEqual([
      expect.stringContaining("Which group of persons?"),
      "YouEnough, start the research.",
      expect.stringContaining("Fixing what the research is about…"),
    ]);
    rerender(<Chat events={[...ended, ev(11, "phase", { phase: "plan" })]} onAnswer={onAnswer} />);
    expect(turns()).toHaveLength(2); // the chat stays on record
  });

  it("puts an answer that could not be sent back into the field", async () => {
    const user = userEvent.setup();
    const { rerender } = renderWithProviders(<Chat events={FIRST} onAnswer={vi.fn()} pending={false} />);
    await user.type(screen.getByRole("textbox", { name: "Answer" }), "Only workers{Enter}");
    rerender(<Chat events={FIRST} onAnswer={vi.fn()} pending />);
    rerender(<Chat events={FIRST} onAnswer={vi.fn()} failed />);
    expect(screen.getByRole("textbox", { name: "Answer" })).toHaveValue("Only workers");
    expect(turns().map((t) => t.speaker)).toEqual(["Rabbithole"]);
    expect(screen.getByRole("button", { name: "Send answer" })).toBeEnabled();
  });

  it("speaks German when asked to", () => {
    renderWithProviders(<Chat events={[...FIRST, ...ANSWERED]} onAnswer={vi.fn()} />, "de");
    expect(screen.getByRole("list", { name: "Gesprächsverlauf" })).toBeInTheDocument();
    expect(screen.getByText("Sie")).toBeInTheDocument();
    expect(screen.getByTestId("clarify-activity")).toHaveTextContent(
      "Durchsuche Ihre Dokumente: 2 von 3 Anfragen, gefundene Passagen: 12",
    );
    expect(screen.getByRole("textbox", { name: "Antwort" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Genug, Recherche starten" })).toBeDisabled();
  });
});
