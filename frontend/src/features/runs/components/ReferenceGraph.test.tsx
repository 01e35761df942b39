import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { renderWithProviders } from "../../../test/render";
import type { ReferenceFollowed } from "../events/types";
import { ReferenceGraph } from "./ReferenceGraph";

const references: ReferenceFollowed[] = [
  { seq: 1, task_id: "t1", from: { document: "StrlSchG", section: "§ 78" }, mention: "nach § 55", to: { document: "StrlSchV", section: "§ 55" }, depth: 1 },
  { seq: 2, task_id: "t1", from: { document: "StrlSchG", section: "§ 78" }, mention: "§ 5", to: { document: "StrlSchG", section: "§ 5" }, depth: 1 },
  { seq: 3, task_id: "t2", from: { document: "StrlSchV", section: "§ 55" }, mention: "§ 9a AtG", to: { document: "AtG", section: "§ 9a" }, depth: 2 },
];

describe("ReferenceGraph", () => {
  it("draws every place once and an arrow per reference", () => {
    renderWithProviders(<ReferenceGraph references={references} />);
    const diagram = screen.getByTestId("reference-diagram");
    const nodes = within(diagram).getAllByRole("button");
    expect(nodes.map((n) => n.getAttribute("aria-label"))).toEqual([
      "StrlSchG § 78",
      "StrlSchV § 55",
      "StrlSchG § 5",
      "AtG § 9a",
    ]);
    expect(diagram.querySelectorAll("path.ref-link")).toHaveLength(3);
  });

  it("a chosen place keeps its own references bright, by click and by keyboard", async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReferenceGraph references={references} />);
    const diagram = screen.getByTestId("reference-diagram");
    await user.click(within(diagram).getByRole("button", { name: "AtG § 9a" }));
    expect(within(diagram).getByRole("button", { name: "AtG § 9a" })).toHaveAttribute("aria-pressed", "true");
    expect(diagram.querySelectorAll("path.ref-link:not(.dim)")).toHaveLength(1);
    const source = within(diagram).getByRole("button", { name: "StrlSchG § 78" });
    source.focus();
    await user.keyboard("{Enter}");
    expect(source).toHaveAttribute("aria-pressed", "true");
    expect(diagram.querySelectorAll("path.ref-link:not(.dim)")).toHaveLength(2);
    await user.keyboard(" ");
    expect(diagram.querySelectorAll("path.ref-link.dim")).toHaveLength(0);
  });
});
