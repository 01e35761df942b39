import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown } from "./markdown";

describe("citation markers", () => {
  it("are read one by one, adjacent ones each its own", () => {
    expect(parseInline("Der Grenzwert beträgt 20 mSv [1][3].")).toEqual([
      { kind: "text", text: "Der Grenzwert beträgt 20 mSv " },
      { kind: "cite", n: 1, text: "[1]" },
      { kind: "cite", n: 3, text: "[3]" },
      { kind: "text", text: "." },
    ]);
  });

  it("stay text in code, and a bracket that is no marker stays text", () => {
    expect(parseInline("a [2] `x[1]`")).toEqual([
      { kind: "text", text: "a " },
      { kind: "cite", n: 2, text: "[2]" },
      { kind: "text", text: " " },
      { kind: "code", text: "x[1]" },
    ]);
    expect(parseMarkdown("```\n[5]\n```")).toEqual([{ kind: "code", text: "[5]" }]);
    expect(parseInline("a [note] b")).toEqual([{ kind: "text", text: "a [note] b" }]);
  });

  it("the mark of an uncited sentence, in either language", () => {
    expect(parseInline("Er gilt auch für Schüler [ohne Beleg]. Es gilt [2].")).toEqual([
      { kind: "text", text: "Er gilt auch für Schüler " },
      { kind: "uncited", text: "[ohne Beleg]" },
      { kind: "text", text: ". Es gilt " },
      { kind: "cite", n: 2, text: "[2]" },
      { kind: "text", text: "." },
    ]);
    expect(parseInline("It applies [uncited].")[1]).toEqual({ kind: "uncited", text: "[uncited]" });
  });
});

describe("the report's Markdown", () => {
  it("reads what the backend writes: title, table of contents, sections with notes, a sources list", () => {
    const report = [
      "# Grenzwerte",
      "## Inhalt",
      "1. [Berufliche Exposition](#berufliche-exposition)\n2. [Fazit](#fazit)",
      "## Berufliche Exposition",
      "*Aus den geprüften Befunden zusammengestellt.*",
      "Der Grenzwert beträgt **20 mSv** im Kalenderjahr [1].",
    ].join("\n\n");
    expect(parseMarkdown(report)).toEqual([
      { kind: "heading", level: 1, inlines: [{ kind: "text", text: "Grenzwerte" }], text: "Grenzwerte" },
      { kind: "heading", level: 2, inlines: [{ kind: "text", text: "Inhalt" }], text: "Inhalt" },
      {
        kind: "list",
        ordered: true,
        start: 1,
        items: [
          [{ kind: "link", href: "#berufliche-exposition", children: [{ kind: "text", text: "Berufliche Exposition" }] }],
          [{ kind: "link", href: "#fazit", children: [{ kind: "text", text: "Fazit" }] }],
        ],
      },
      {
        kind: "heading",
        level: 2,
        inlines: [{ kind: "text", text: "Berufliche Exposition" }],
        text: "Berufliche Exposition",
      },
      { kind: "paragraph", inlines: [{ kind: "em", children: [{ kind: "text", text: "Aus den geprüften Befunden zusammengestellt." }] }] },
      {
        kind: "paragraph",
        inlines: [
          { kind: "text", text: "Der Grenzwert beträgt " },
          { kind: "strong", children: [{ kind: "text", text: "20 mSv" }] },
          { kind: "text", text: " im Kalenderjahr " },
          { kind: "cite", n: 1, text: "[1]" },
          { kind: "text", text: "." },
        ],
      },
    ]);
  });

  it("never makes markup of raw HTML, nor a link of a script address", () => {
    expect(parseMarkdown("<script>alert(1)</script> [x](javascript:alert(1)) [y](https://example.org)")).toEqual([
      {
        kind: "paragraph",
        inlines: [
          { kind: "text", text: "<script>alert(1)</script> " },
          { kind: "text", text: "x" },
          { kind: "text", text: ") " },
          { kind: "link", href: "https://example.org", children: [{ kind: "text", text: "y" }] },
        ],
      },
    ]);
  });

  it("keeps a word with underscores and a lone asterisk as they are", () => {
    expect(parseInline("snake_case_name and 5 * 3")).toEqual([{ kind: "text", text: "snake_case_name and 5 * 3" }]);
  });

  it("reads bullet lists and block quotes", () => {
    expect(parseMarkdown("- a [1]\n- b\n\n> zitiert")).toEqual([
      {
        kind: "list",
        ordered: false,
        start: 1,
        items: [
          [{ kind: "text", text: "a " }, { kind: "cite", n: 1, text: "[1]" }],
          [{ kind: "text", text: "b" }],
        ],
      },
      { kind: "quote", blocks: [{ kind: "paragraph", inlines: [{ kind: "text", text: "zitiert" }] }] },
    ]);
  });
});
