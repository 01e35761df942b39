import { describe, expect, it } from "vitest";
import { itemRanges, markItems, quoteRange } from "./highlight";

const page = "§ 78 Grenzwerte\nDer Grenzwert der effektiven Dosis beträgt\n20 Millisievert im Kalenderjahr. Satz 2 gilt.";
const quote = "Der Grenzwert der effektiven Dosis beträgt\n20 Millisievert im Kalenderjahr.";
const start = page.indexOf(quote);

describe("quote range on the page", () => {
  it("takes the source's page offsets when they cut exactly the quote", () => {
    expect(quoteRange(page, 5000, { quote, start, end: start + quote.length })).toEqual({ start, end: start + quote.length });
  });

  it("takes document offsets minus the page's offset", () => {
    expect(quoteRange(page, 5000, { quote, start: 5000 + start, end: 5000 + start + quote.length })).toEqual({
      start,
      end: start + quote.length,
    });
  });

  it("finds the quote with other whitespace, and gives null when the page does not hold it", () => {
    const spaced = "Der Grenzwert  der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr.";
    expect(quoteRange(page, 0, { quote: spaced, start: 0, end: 3 })).toEqual({ start, end: start + quote.length });
    expect(quoteRange(page, 0, { quote: "Atomgesetz", start: 0, end: 10 })).toBeNull();
  });
});

describe("a search hit's passage (document offsets) on its pages", () => {
  // the document text: page 1 at offset 0, then "\n\f", then page 2
  const page1 = "§ 21 Kosten\nFür Entscheidungen nach diesem Gesetz werden Gebühren";
  const page2 = "und Auslagen erhoben. Satz 2 gilt entsprechend.";
  const offset2 = page1.length + 2;
  const documentText = `${page1}\n\f${page2}`;
  const start = documentText.indexOf("Für Entscheidungen");
  const end = documentText.indexOf(" Satz 2");
  const hit = { quote: documentText.slice(start, end), start, end };

  it("highlights the part of a passage that runs over a page break on each of its pages", () => {
    expect(quoteRange(page1, 0, hit)).toEqual({ start, end: page1.length });
    expect(quoteRange(page2, offset2, hit)).toEqual({ start: 0, end: end - offset2 });
  });

  it("takes the offsets alone when the passage's text is not known (a hit opened from a link)", () => {
    const linked = { quote: "", start, end };
    expect(quoteRange(page1, 0, linked)).toEqual({ start, end: page1.length });
    expect(quoteRange(page2, offset2, linked)).toEqual({ start: 0, end: end - offset2 });
    expect(quoteRange(page2, offset2, { quote: "", start: 0, end: 5 })).toBeNull();
  });

  it("refuses offsets whose characters on the page are not the passage's", () => {
    expect(quoteRange(page1, 0, { ...hit, quote: hit.quote.replace("Gebühren", "Beiträge") })).toBeNull();
  });
});

describe("text layer items of a range", () => {
  // pdf.js splits the page into items with its own whitespace
  const items = ["§ 78 Grenzwerte", "", "Der Grenzwert der ", "effektiven Dosis beträgt", "20 Millisievert im", " Kalenderjahr. Satz 2 gilt."];

  it("maps the quote's characters onto the items that show them", () => {
    const ranges = itemRanges(page, { start, end: start + quote.length }, items);
    expect(ranges).toEqual([
      { item: 2, start: 0, end: 17 },
      { item: 3, start: 0, end: 24 },
      { item: 4, start: 0, end: 18 },
      { item: 5, start: 1, end: 14 },
    ]);
    const shown = ranges.map((r) => items[r.item]!.slice(r.start, r.end)).join(" ");
    expect(shown.replace(/\s+/g, "")).toBe(quote.replace(/\s+/g, ""));
  });

  it("takes the occurrence nearest to the quote's place when the text repeats", () => {
    const text = "Dosis. Dosis. Dosis.";
    const layer = ["Dosis.", "Dosis.", "Dosis."];
    expect(itemRanges(text, { start: 14, end: 20 }, layer)).toEqual([{ item: 2, start: 0, end: 6 }]);
    expect(itemRanges(text, { start: 0, end: 6 }, layer)).toEqual([{ item: 0, start: 0, end: 6 }]);
  });

  it("falls back to the quote's position when the layer's characters differ (ligatures)", () => {
    const text = "Die Pflicht gilt.";
    const layer = ["Die Pﬂicht gilt."]; // "ﬂ" is one character in the layer
    const ranges = itemRanges(text, { start: 4, end: 11 }, layer);
    expect(ranges[0]!.item).toBe(0);
    expect(ranges[0]!.start).toBe(4);
  });

  it("wraps exactly those characters of the spans in <mark>", () => {
    const spans = items.map((text) => {
      const span = document.createElement("span");
      span.textContent = text;
      return span;
    });
    const marks = markItems(spans, itemRanges(page, { start, end: start + quote.length }, items));
    expect(marks.map((m) => m.textContent)).toEqual(["Der Grenzwert der", "effektiven Dosis beträgt", "20 Millisievert im", "Kalenderjahr."]);
    expect(spans[5]!.textContent).toBe(" Kalenderjahr. Satz 2 gilt.");
    expect(spans[0]!.querySelector("mark")).toBeNull();
  });
});
