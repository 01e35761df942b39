import { describe, expect, it } from "vitest";
import type { ReferenceFollowed } from "../events/types";
import { layoutReferences, placeId } from "./referenceLayout";

function ref(seq: number, from: [string, string | null], to: [string, string | null], depth: number, mention = "§"): ReferenceFollowed {
  return { seq, task_id: "t1", from: { collection: "laws", page: null, document: from[0], section: from[1] }, to: { collection: "laws", page: null, document: to[0], section: to[1] }, mention, depth };
}

describe("layoutReferences", () => {
  it("puts each hop in its own column and keeps rows in order of appearance", () => {
    const layout = layoutReferences([
      ref(1, ["StrlSchG", "§ 78"], ["StrlSchV", "§ 55"], 1),
      ref(2, ["StrlSchG", "§ 78"], ["StrlSchG", "§ 5"], 1),
      ref(3, ["StrlSchV", "§ 55"], ["AtG", "§ 9a"], 2),
    ]);
    const at = (doc: string, section: string) => layout.nodes.find((n) => n.id === placeId({ document: doc, section }));
    expect(at("StrlSchG", "§ 78")).toMatchObject({ column: 0, row: 0 });
    expect(at("StrlSchV", "§ 55")).toMatchObject({ column: 1, row: 0 });
    expect(at("StrlSchG", "§ 5")).toMatchObject({ column: 1, row: 1 });
    expect(at("AtG", "§ 9a")).toMatchObject({ column: 2, row: 0 });
    expect(layout.columns).toBe(3);
    expect(layout.rows).toBe(2);
    expect(layout.edges).toHaveLength(3);
  });

  it("counts a repeated reference once and keeps a place in its lowest column", () => {
    const layout = layoutReferences([
      ref(1, ["A", "§ 1"], ["B", "§ 2"], 2, "nach § 2"),
      ref(2, ["A", "§ 1"], ["B", "§ 2"], 2, "nach § 2"),
      ref(3, ["A", "§ 1"], ["C", null], 1),
    ]);
    expect(layout.edges.find((e) => e.mention === "nach § 2")?.count).toBe(2);
    expect(layout.nodes.find((n) => n.document === "A")?.column).toBe(0);
    expect(layout.nodes.find((n) => n.document === "C")?.section).toBeNull();
  });

  it("draws nothing without references", () => {
    expect(layoutReferences([])).toEqual({ nodes: [], edges: [], columns: 0, rows: 0 });
  });
});
