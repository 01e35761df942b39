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
