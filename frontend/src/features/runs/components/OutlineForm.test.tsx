import { fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import type { OutlineInterrupt } from "../events/types";
import { OutlineForm } from "./OutlineForm";

const outline: OutlineInterrupt = {
  kind: "outline",
  topic: "Radiation protection duties",
  title: "Radiation protection of occupationally exposed persons",
  limit: 4,
  round: 0,
  max_rounds: 3,
  error: null,
  sections: [
    { id: "s1", title: "Introduction", description: "Scope", research: false, questions: [], corpus_queries: [] },
    { id: "s2", title: "Dose limits", description: "§ 78", research: true, questions: ["Which dose limits apply?"], corpus_queries: [] },
    { id: "s3", title: "Monitoring", description: "", research: true, questions: ["How is the dose measured?"], corpus_queries: [] },
  ],
};

function renderForm(interrupt: OutlineInterrupt = outline) {
  const onSubmit = vi.fn();
  renderWithProviders(<OutlineForm interrupt={interrupt} onSubmit={onSubmit} pending={false} />);
  return { user: userEvent.setup(), onSubmit };
}

describe("outline form", () => {
  it("shows the proposed sections with their research toggles and questions, and approves them unchanged", async () => {
    const { user, onSubmit } = renderForm();
    expect(screen.getByTestId("outline-form")).toHaveTextContent("Radiation protection of occupationally exposed persons");
    expect(screen.getByRole("textbox", { name: "Title of section 2" })).toHaveValue("Dose limits");
    expect(screen.getByRole("checkbox", { name: "Research section 1 in the documents" })).not.toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Research section 2 in the documents" })).toBeChecked();
    expect(screen.getByRole("textbox", { name: "Question 1 of section 2" })).toHaveValue("Which dose limits apply?");
    // a framing section is not searched: no questions to edit
    expect(screen.queryByRole("group", { name: "Questions of section 1" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ action: "approve" });
  });

  it("sends the edited outline: a new title, a research toggle, a removal, an addition, a new order", async () => {
    const { user, onSubmit } = renderForm();
    const title2 = screen.getByRole("textbox", { name: "Title of section 2" });
    await user.clear(title2);
    await user.type(title2, "Dose limits per year");
    await user.click(screen.getByRole("checkbox", { name: "Research section 1 in the documents" }));
    await user.click(screen.getByRole("button", { name: "Remove section 3" }));
    await user.type(screen.getByRole("textbox", { name: "New section" }), "Conclusion");
    await user.click(screen.getByRole("button", { name: "Add section" }));
    await user.click(screen.getByRole("checkbox", { name: "Research section 3 in the documents" }));
    // order now: s1, s2, Conclusion; move the conclusion up once
    await user.click(screen.getByRole("button", { name: "Move section 3 up" }));
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      action: "edit",
      sections: [
        { id: "s1", title: "Introduction", description: "Scope", research: true },
        { title: "Conclusion", description: "", research: false },
        // renamed: the questions the form shows are sent, so the section is not searched under its title only
        { id: "s2", title: "Dose limits per year", description: "§ 78", research: true, questions: ["Which dose limits apply?"] },
      ],
    });
  });

  it("edits a section's questions: rewrite, add, remove; blank ones dropped; an added section sends its own", async () => {
    const { user, onSubmit } = renderForm();
    const q31 = screen.getByRole("textbox", { name: "Question 1 of section 3" });
    await user.clear(q31);
    await user.type(q31, "Who measures the dose?");
    await user.click(screen.getByRole("button", { name: "Add a question to section 3" }));
    expect(screen.getByRole("textbox", { name: "Question 2 of section 3" })).toHaveFocus();
    await user.keyboard("   ");
    await user.click(screen.getByRole("button", { name: "Add a question to section 3" }));
    await user.keyboard("How often?");
    await user.click(screen.getByRole("button", { name: "Remove question 1 of section 2" }));
    expect(screen.queryByRole("textbox", { name: "Question 1 of section 2" })).not.toBeInTheDocument();
    expect(screen.getByRole("group", { name: "Questions of section 2" })).toHaveTextContent("searched under its title");
    await user.type(screen.getByRole("textbox", { name: "New section" }), "Conclusion{Enter}");
    await user.click(screen.getByRole("button", { name: "Add a question to section 4" }));
    await user.keyboard("What follows?");
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      action: "edit",
      sections: [
        { id: "s1", title: "Introduction", description: "Scope", research: false },
        { id: "s2", title: "Dose limits", description: "§ 78", research: true, questions: [] },
        { id: "s3", title: "Monitoring", description: "", research: true, questions: ["Who measures the dose?", "How often?"] },
        { title: "Conclusion", description: "", research: true, questions: ["What follows?"] },
      ],
    });
  });

  it("approves unchanged when the questions differ only by blank lines, and stops adding at six", async () => {
    const { user, onSubmit } = renderForm();
    const add = screen.getByRole("button", { name: "Add a question to section 2" });
    for (let i = 0; i < 5; i += 1) await user.click(add);
    expect(screen.getAllByRole("textbox", { name: /^Question \d of section 2$/ })).toHaveLength(6);
    expect(add).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ action: "approve" });
  });

  it("reorders with Alt+ArrowDown in a title, keeping the focus on the moved section; a toggle alone is an edit", async () => {
    const { user, onSubmit } = renderForm();
    await user.click(screen.getByRole("textbox", { name: "Title of section 1" }));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(screen.getByRole("textbox", { name: "Title of section 2" })).toHaveValue("Introduction");
    expect(screen.getByRole("textbox", { name: "Title of section 2" })).toHaveFocus();
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    expect(screen.getByRole("textbox", { name: "Title of section 1" })).toHaveValue("Introduction");
    await user.click(screen.getByRole("checkbox", { name: "Research section 3 in the documents" }));
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    const body = onSubmit.mock.calls[0]![0];
    expect(body.action).toBe("edit");
    expect(body.sections.map((s: { id?: string; research: boolean }) => [s.id, s.research])).toEqual([
      ["s1", false],
      ["s2", true],
      ["s3", false],
    ]);
  });

  it("reorders by dragging a section's handle onto another section", async () => {
    const { user, onSubmit } = renderForm();
    const target = screen.getByRole("textbox", { name: "Title of section 3" }).closest("li")!;
    fireEvent.dragStart(screen.getByTestId("outline-drag-1"));
    fireEvent.dragOver(target);
    fireEvent.drop(target);
    expect(screen.getByRole("textbox", { name: "Title of section 3" })).toHaveValue("Introduction");
    expect(screen.getByRole("textbox", { name: "Title of section 1" })).toHaveValue("Dose limits");
    // a drop without a drag moves nothing
    fireEvent.drop(screen.getByRole("textbox", { name: "Title of section 1" }).closest("li")!);
    await user.click(screen.getByRole("button", { name: "Approve outline" }));
    const body = onSubmit.mock.calls[0]![0];
    expect(body.action).toBe("edit");
    expect(body.sections.map((s: { id?: string }) => s.id)).toEqual(["s2", "s3", "s1"]);
  });

  it("re-plans with the feedback text, and refuses feedback when no round is left", async () => {
    const { user, onSubmit } = renderForm();
    const replan = screen.getByRole("button", { name: "Re-plan with feedback" });
    expect(replan).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: "Feedback on the outline" }), "  Add a section on apprentices ");
    await user.click(replan);
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ action: "feedback", feedback: "Add a section on apprentices" });
  });

  it("says why an answer was refused, stops at the section limit and speaks German", async () => {
    const onSubmit = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(
      <OutlineForm interrupt={{ ...outline, round: 3, error: "duplicate title" }} onSubmit={onSubmit} pending={false} />,
      "de",
    );
    expect(screen.getByRole("alert")).toHaveTextContent("duplicate title");
    expect(screen.getByRole("textbox", { name: "Rückmeldung zur Gliederung" })).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: "Neuer Abschnitt" }), "Fazit{Enter}");
    expect(screen.getByRole("textbox", { name: "Titel des Abschnitts 4" })).toHaveValue("Fazit");
    expect(screen.getByRole("textbox", { name: "Neuer Abschnitt" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Gliederung freigeben" }));
    expect(onSubmit.mock.calls[0]![0].sections).toHaveLength(4);
  });
});
