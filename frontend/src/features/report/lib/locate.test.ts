import { describe, expect, it } from "vitest";
import { inMarkdown, locate, normalise } from "./locate";

const markdown = "# T\n\n## Grenzwerte\n\nDer Grenzwert beträgt *6 mSv* [1][2]. Er gilt auch für Schüler [ohne Beleg].\n\n## Organdosen\n\nText [3].";

describe("finding what the checks name", () => {
  it("compares without markers, emphasis, case and spacing", () => {
    expect(normalise("Der  Grenzwert beträgt *6 mSv* [1][2].")).toBe("der grenzwert beträgt 6 msv.");
    expect(normalise("It applies [uncited].")).toBe("it applies.");
  });

  it("knows whether the Markdown shows a sentence, else its section's heading", () => {
    expect(inMarkdown(markdown, { section: "Grenzwerte", sentence: "Er gilt auch für Schüler." })).toBe(true);
    expect(inMarkdown(markdown, { sentence: "Der Grenzwert beträgt 6 mSv." })).toBe(true);
    expect(inMarkdown(markdown, { section: "Organdosen", sentence: "A sentence the guards dropped." })).toBe(true);
    expect(inMarkdown(markdown, { sentence: "A sentence the guards dropped." })).toBe(false);
    expect(inMarkdown(markdown, { section: "Gren" })).toBe(false);
    expect(inMarkdown(markdown, {})).toBe(false);
  });

  it("finds the rendered paragraph of a sentence, else the heading, ignoring the heading's badges", () => {
    const root = document.createElement("div");
    root.innerHTML =
      '<h2>Grenzwerte</h2><p>Der Grenzwert beträgt <em>6 mSv</em> <button>[1]</button>. Er gilt <mark>[ohne Beleg]</mark>.</p>' +
      '<h2>Organdosen <span data-badge="">assembled</span></h2><ul><li>Text <button>[3]</button>.</li></ul>';
    expect(locate(root, { section: "Grenzwerte", sentence: "Der Grenzwert beträgt 6 mSv." })).toBe(root.querySelector("p"));
    expect(locate(root, { sentence: "Text." })).toBe(root.querySelector("li"));
    expect(locate(root, { section: "Organdosen", sentence: "Gone." })).toBe(root.querySelectorAll("h2")[1]);
    expect(locate(root, { sentence: "Gone." })).toBeNull();
  });
});
