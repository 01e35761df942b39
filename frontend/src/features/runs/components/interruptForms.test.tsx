import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import type { ClarificationInterrupt, PlanInterrupt } from "../events/types";
import { ClarificationPanel } from "./ClarificationPanel";
import { PlanForm } from "./PlanForm";

const round: ClarificationInterrupt = {
  kind: "clarification",
  round: 2,
  questions: ["Which group of persons?", "Effective or organ dose?"],
  understanding: "Dose limits for occupationally exposed persons",
  coverage: 0.6,
  gaps: ["apprentices"],
  queries: ["Grenzwerte beruflich exponierte Personen"],
  passages: [{ chunk_id: "c9", document: "StrlSchG.pdf", page: 41, section: "§ 78", score: 0.83, snippet: "Der Grenzwert der effektiven Dosis" }],
  dedup_ratio: 0.2,
  answer: null,
  error: null,
};

const plan: PlanInterrupt = {
  kind: "plan",
  question: "Welche Dosisgrenzwerte gelten?",
  limit: 4,
  error: null,
  tasks: [
    { id: "t1", title: "Effective dose limits", description: "§ 78", queries: ["q1"], corpus_queries: [] },
    { id: "t2", title: "Organ dose limits", description: "", queries: ["q2"], corpus_queries: [] },
    { id: "t3", title: "Apprentices", description: "", queries: ["q3"], corpus_queries: [] },
  ],
};

describe("clarification form", () => {
  it("shows the round (questions, understanding, coverage, gaps, passages) and sends the answer", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    renderWithProviders(<ClarificationPanel interrupt={round} history={[]} onAnswer={onAnswer} pending={false} />);
    expect(screen.getByText("Which group of persons?")).toBeInTheDocument();
    expect(screen.getByText("Dose limits for occupationally exposed persons")).toBeInTheDocument();
    expect(screen.getByText("apprentices")).toBeInTheDocument();
    expect(screen.getByText(/StrlSchG\.pdf, p\. 41, § 78/)).toBeInTheDocument();
    expect(screen.getByText(/duplicates removed: 20 %/)).toBeInTheDocument();
    const send = screen.getByRole("button", { name: "Send answer" });
    expect(send).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: "Answer" }), "  Only the effective dose  ");
    await user.click(send);
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ answer: "Only the effective dose" });
    expect(screen.getByRole("textbox", { name: "Answer" })).toHaveValue("");
  });

  it("ends clarification with /end", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    renderWithProviders(<ClarificationPanel interrupt={round} history={[]} onAnswer={onAnswer} pending={false} />);
    await user.click(screen.getByRole("button", { name: "Enough, start the research" }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ answer: "/end" });
  });

  it("speaks German when asked to", () => {
    renderWithProviders(<ClarificationPanel interrupt={round} history={[]} onAnswer={vi.fn()} pending={false} />, "de");
    expect(screen.getByRole("textbox", { name: "Antwort" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Genug, Recherche starten" })).toBeInTheDocument();
  });
});

describe("plan form", () => {
  it("approves the plan as proposed with tasks: null", async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderWithProviders(<PlanForm interrupt={plan} onSubmit={onSubmit} pending={false} />);
    await user.click(screen.getByRole("button", { name: "Approve plan" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ tasks: null });
  });

  it("sends the edited plan: a new title, a removal, an addition, a new order (buttons)", async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderWithProviders(<PlanForm interrupt={plan} onSubmit={onSubmit} pending={false} />);
    const title1 = screen.getByRole("textbox", { name: "Title of task 1" });
    await user.clear(title1);
    await user.type(title1, "Effective dose per year");
    await user.click(screen.getByRole("button", { name: "Remove task 2" }));
    await user.type(screen.getByRole("textbox", { name: "New task" }), "Pregnant workers");
    await user.click(screen.getByRole("button", { name: "Add task" }));
    // order now: t1, t3, new; move the new task up once
    await user.click(screen.getByRole("button", { name: "Move task 3 up" }));
    await user.click(screen.getByRole("button", { name: "Approve plan" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      tasks: [
        { id: "t1", title: "Effective dose per year", description: "§ 78" },
        { title: "Pregnant workers", description: "" },
        { id: "t3", title: "Apprentices", description: "" },
      ],
    });
  });

  it("reorders with Alt+ArrowDown / Alt+ArrowUp in a title and keeps the focus on the moved task", async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderWithProviders(<PlanForm interrupt={plan} onSubmit={onSubmit} pending={false} />);
    await user.click(screen.getByRole("textbox", { name: "Title of task 1" }));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(screen.getByRole("textbox", { name: "Title of task 2" })).toHaveValue("Effective dose limits");
    expect(screen.getByRole("textbox", { name: "Title of task 2" })).toHaveFocus();
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(screen.getByRole("textbox", { name: "Title of task 3" })).toHaveValue("Effective dose limits");
    await user.click(screen.getByRole("textbox", { name: "Title of task 1" }));
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(screen.getByRole("textbox", { name: "Title of task 1" })).toHaveValue("Organ dose limits");
    await user.click(screen.getByRole("button", { name: "Approve plan" }));
    expect(onSubmit.mock.calls[0]![0].tasks.map((t: { id?: string }) => t.id)).toEqual(["t2", "t3", "t1"]);
  });

  it("does not add more tasks than the limit and says why an edit was refused", async () => {
    const user = userEvent.setup();
    renderWithProviders(<PlanForm interrupt={{ ...plan, error: "a task needs a title" }} onSubmit={vi.fn()} pending={false} />);
    expect(screen.getByRole("alert")).toHaveTextContent("a task needs a title");
    await user.type(screen.getByRole("textbox", { name: "New task" }), "Fourth{Enter}");
    expect(screen.getByRole("textbox", { name: "Title of task 4" })).toHaveValue("Fourth");
    expect(screen.getByRole("textbox", { name: "New task" })).toBeDisabled();
  });
});
