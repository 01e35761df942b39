import { describe, expect, it } from "vitest";
import { citationNumber, remarkCitations, splitCitations, UNCITED_HREF, withoutSourcesSection } from "./citations";

describe("citation markers", () => {
  it("become links to #cite-n, adjacent ones each its own", () => {
    expect(splitCitations("Der Grenzwert beträgt 20 mSv [1][3].")).toEqual([
      { type: "text", value: "Der Grenzwert beträgt 20 mSv " },
      { type: "link", url: "#cite-1", children: [{ type: "text", value: "[1]" }] },
      { type: "link", url: "#cite-3", children: [{ type: "text", value: "[3]" }] },
      { type: "text", value: "." },
    ]);
    expect(citationNumber("#cite-12")).toBe(12);
    expect(citationNumber("https://example.org")).toBeNull();
  });

  it("are left alone in code", () => {
    const tree = {
      type: "root",
      children: [
        { type: "paragraph", children: [{ type: "text", value: "a [2]" }, { type: "inlineCode", value: "x[1]" }] },
        { type: "code", value: "[5]" },
      ],
    };
    remarkCitations()(tree);
    const paragraph = tree.children[0] as { children: Array<{ type: string }> };
    expect(paragraph.children.map((c) => c.type)).toEqual(["text", "link", "inlineCode"]);
    expect(tree.children[1]).toEqual({ type: "code", value: "[5]" });
  });
});

describe("the report's sources section", () => {
  const report = "# T\n\n## Grenzwerte\n\nDer Grenzwert beträgt 20 mSv [1].\n\n## Quellen\n\n[1] StrlSchG.pdf, S. 41 — \"Der Grenzwert\"\n\n[2] StrlSchV.pdf, S. 3";

  it("is left out (the page lists the sources itself)", () => {
    expect(withoutSourcesSection(report)).toBe("# T\n\n## Grenzwerte\n\nDer Grenzwert beträgt 20 mSv [1].");
  });

  it("a last section with prose stays", () => {
    const prose = "# T\n\n## Fazit\n\n[1] gilt, aber nicht immer.\n\nMehr Text.";
    expect(withoutSourcesSection(prose)).toBe(prose);
    expect(withoutSourcesSection("no headings [1]")).toBe("no headings [1]");
  });
});

describe("the mark of an uncited sentence", () => {
  it("becomes a link to #uncited in either language, beside citation markers", () => {
    expect(splitCitations("Er gilt auch für Schüler [ohne Beleg]. Es gilt [2].")).toEqual([
      { type: "text", value: "Er gilt auch für Schüler " },
      { type: "link", url: UNCITED_HREF, children: [{ type: "text", value: "[ohne Beleg]" }] },
      { type: "text", value: ". Es gilt " },
      { type: "link", url: "#cite-2", children: [{ type: "text", value: "[2]" }] },
      { type: "text", value: "." },
    ]);
    expect(splitCitations("It applies [uncited].")[1]).toEqual({ type: "link", url: UNCITED_HREF, children: [{ type: "text", value: "[uncited]" }] });
    expect(citationNumber(UNCITED_HREF)).toBeNull();
    expect(splitCitations("a [note] b")).toEqual([{ type: "text", value: "a [note] b" }]);
  });
});
