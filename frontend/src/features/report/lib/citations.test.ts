import { describe, expect, it } from "vitest";
import { withoutSourcesSection } from "./citations";

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
