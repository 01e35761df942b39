import { describe, expect, it } from "vitest";
import { de } from "./de";
import { en } from "./en";
import { initialLanguage, translate } from "./i18n";

describe("i18n", () => {
  it("follows the stored choice, else the browser's first known language, else English", () => {
    expect(initialLanguage("de", ["en-US"])).toBe("de");
    expect(initialLanguage(null, ["fr-FR", "de-AT", "en"])).toBe("de");
    expect(initialLanguage(null, ["en-GB", "de"])).toBe("en");
    expect(initialLanguage(null, ["fr"])).toBe("en");
    expect(initialLanguage("xx", [])).toBe("en");
  });

  it("fills placeholders and has every text in both languages", () => {
    expect(translate("de", "plan.moveUp", { n: 2 })).toBe("Aufgabe 2 nach oben");
    expect(translate("en", "plan.moveUp", { n: 2 })).toBe("Move task 2 up");
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(de)) {
      const placeholders = (s: string) => [...s.matchAll(/\{(\w+)(?:\}|, plural,)/g)].map((m) => m[1]).sort();
      expect(placeholders(text), key).toEqual(placeholders(en[key as keyof typeof en]));
    }
  });

  it("says one document, not 1 documents, by each language's plural rules", () => {
    const summary = (language: "en" | "de", documents: number) =>
      translate(language, "collection.summary", { documents, chunks: 1, model: "m" });
    expect(summary("en", 1)).toBe("1 document, 1 passage, embedded with m.");
    expect(summary("en", 0)).toBe("0 documents, 1 passage, embedded with m.");
    expect(summary("en", 2)).toBe("2 documents, 1 passage, embedded with m.");
    expect(summary("de", 1)).toBe("1 Dokument, 1 Passage, eingebettet mit m.");
    expect(summary("de", 3)).toBe("3 Dokumente, 1 Passage, eingebettet mit m.");
    expect(translate("en", "runs.more", { shown: 1, total: 1 })).toBe("1 of 1 run shown.");
    expect(translate("de", "outline.roundsLeft", { n: 1 })).toBe("Noch einmal neu planen möglich.");
    expect(translate("de", "outline.roundsLeft", { n: 2 })).toBe("Noch 2-mal neu planen möglich.");
  });

  it("writes every plural choice of a message with an other branch", () => {
    for (const dictionary of [en, de]) {
      for (const [key, text] of Object.entries(dictionary)) {
        for (const choice of text.matchAll(/\{\w+, plural,(.*?\})\s*\}/g)) expect(choice[1], key).toContain("other {");
      }
    }
  });
});
