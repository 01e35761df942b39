import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import type { ReferenceFollowed } from "../events/types";
import { ReferenceGraph } from "./ReferenceGraph";

const references: ReferenceFollowed[] = [
  { seq: 1, task_id: "t1", from: { collection: "laws", page: null, document: "StrlSchG", section: "§ 78" }, mention: "nach § 55", to: { collection: "laws", page: null, document: "StrlSchV", section: "§ 55" }, depth: 1 },
  { seq: 2, task_id: "t1", from: { collection: "laws", page: null, document: "StrlSchG", section: "§ 78" }, mention: "§ 5", to: { collection: "laws", page: null, document: "StrlSchG", section: "§ 5" }, depth: 1 },
  { seq: 3, task_id: "t2", from: { collection: "laws", page: null, document: "StrlSchV", section: "§ 55" }, mention: "§ 9a AtG", to: { collection: "laws", page: null, document: "AtG", section: "§ 9a" }, depth: 2 },
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
  it("opens a place's page in the viewer where the events say where it lies", async () => {
    const user = userEvent.setup();
    const onOpenPage = vi.fn();
    const placed: ReferenceFollowed[] = [
      {
        seq: 1,
        task_id: "t1",
        from: { collection: "laws", document: "StrlSchG", section: "§ 78", page: 41 },
        mention: "nach § 55",
        to: { collection: "laws", document: "StrlSchV", section: "§ 55", page: 12 },
        depth: 1,
      },
      { seq: 2, task_id: "t1", from: { collection: "laws", page: null, document: "AtG", section: "§ 1" }, mention: "§ 2", to: { collection: "laws", page: null, document: "AtG", section: "§ 2" }, depth: 1 },
    ];
    renderWithProviders(<ReferenceGraph references={placed} onOpenPage={onOpenPage} />);
    await user.click(screen.getByRole("button", { name: "Open StrlSchV § 55 in the viewer" }));
    expect(onOpenPage).toHaveBeenLastCalledWith({ collection: "laws", document: "StrlSchV", page: 12, section: "§ 55" });
    // a node chosen in the diagram offers its page too
    await user.click(within(screen.getByTestId("reference-diagram")).getByRole("button", { name: "StrlSchG § 78" }));
    const wide = screen
      .getAllByRole("button", { name: "Open StrlSchG § 78 in the viewer" })
      .find((button) => button.textContent === "Open StrlSchG § 78 in the viewer");
    if (!wide) throw new Error("the chosen node offers no button to open its page");
    await user.click(wide);
    expect(onOpenPage).toHaveBeenLastCalledWith({ collection: "laws", document: "StrlSchG", page: 41, section: "§ 78" });
    // events of runs that did not record where a place lies: nothing to open
    expect(screen.queryByRole("button", { name: "Open AtG § 2 in the viewer" })).toBeNull();
  });
});
