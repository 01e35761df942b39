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
      const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(placeholders(text), key).toEqual(placeholders(en[key as keyof typeof en]));
    }
  });
});
