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
  sections: [
    { id: "s1", title: "Introduction", description: "Scope", research: false, questions: [] },
    { id: "s2", title: "Dose limits", description: "§ 78", research: true, questions: ["Which dose limits apply?"] },
    { id: "s3", title: "Monitoring", description: "", research: true, questions: ["How is the dose measured?"] },
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
    expect(screen.getByRole("list", { name: "Questions of section 2" })).toHaveTextContent("Which dose limits apply?");
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
        { id: "s2", title: "Dose limits per year", description: "§ 78", research: true },
      ],
    });
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
