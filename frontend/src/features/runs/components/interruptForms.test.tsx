import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import type { PlanInterrupt } from "../events/types";
import { PlanForm } from "./PlanForm";

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
