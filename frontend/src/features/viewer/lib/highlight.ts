/**
 * Where a cited quote lies on its page, and which characters of the PDF's text layer show it.
 *
 * A source's `start`/`end` are offsets in the page's stored text (GET .../pages: `text`, and `offset`, the
 * page's place in the document's text). The PDF's text layer (pdf.js: one span per text item) holds the same
 * characters with other whitespace, so the two are aligned on non-whitespace characters.
 */

export interface QuoteTarget {
  quote: string;
  start: number;
  end: number;
}

export interface TextRange {
  start: number;
  end: number;
}

/** A slice [start, end) of the text layer's item `item`. */
export interface ItemRange {
  item: number;
  start: number;
  end: number;
}

const SPACE = /\s/;

function squeeze(text: string): string {
  return text.replace(/\s+/g, "");
}

/**
 * The part of a passage [start, end) of the document text that lies on this page (a search hit may run
 * onto the next page), in page-text offsets; null when none of it does. With a quote, the page's characters
 * must be the quote's characters at the same place (else the offsets are not document offsets of this
 * text); without one (a search hit opened from a link) the offsets, verbatim spans of the document text,
 * are taken as they are.
 */
export function spanOnPage(pageText: string, pageOffset: number, target: QuoteTarget): TextRange | null {
  const { quote, start, end } = target;
  const from = Math.max(start, pageOffset);
  const to = Math.min(end, pageOffset + pageText.length);
  if (to <= from) return null;
  const shown = pageText.slice(from - pageOffset, to - pageOffset);
  if (quote && quote.slice(from - start, to - start) !== shown) return null;
  return shown.trim() ? { start: from - pageOffset, end: to - pageOffset } : null;
}

/**
 * The quote's range in the page text: its offsets on the page when they cut exactly the quote, else the
 * offsets taken as document offsets (minus the page's offset; only the part on this page of a passage
 * that runs over a page break), else where the quote occurs on the page (whitespace ignored). null when
 * the page does not hold the quote: then nothing is highlighted.
 */
export function quoteRange(pageText: string, pageOffset: number, target: QuoteTarget): TextRange | null {
  const { quote, start, end } = target;
  if (quote && end > start && pageText.slice(start, end) === quote) return { start, end };
  const span = spanOnPage(pageText, pageOffset, target);
  if (span) return span;
  if (!quote.trim()) return null;
  const exact = pageText.indexOf(quote);
  if (exact >= 0) return { start: exact, end: exact + quote.length };
  // whitespace-insensitive: map positions in the squeezed page text back to the page text
  const positions: number[] = [];
  let squeezed = "";
  for (let i = 0; i < pageText.length; i++) {
    const ch = pageText[i]!;
    if (!SPACE.test(ch)) {
      positions.push(i);
      squeezed += ch;
    }
  }
  const needle = squeeze(quote);
  const at = squeezed.indexOf(needle);
  if (at < 0 || needle.length === 0) return null;
  return { start: positions[at]!, end: positions[at + needle.length - 1]! + 1 };
}

/**
 * The slices of text-layer items that show `range` of `pageText`. Non-whitespace characters are aligned: the
 * quote's characters are looked for in the items' characters (the occurrence nearest to the quote's place on
 * the page); when the layer's text differs (ligatures, hyphenation) the quote's place is taken by position.
 */
export function itemRanges(pageText: string, range: TextRange, items: readonly string[]): ItemRange[] {
  const owners: Array<{ item: number; index: number }> = [];
  let layer = "";
  items.forEach((text, item) => {
    for (let index = 0; index < text.length; index++) {
      const ch = text[index]!;
      if (SPACE.test(ch)) continue;
      owners.push({ item, index });
      layer += ch;
    }
  });
  const before = squeeze(pageText.slice(0, range.start)).length;
  const needle = squeeze(pageText.slice(range.start, range.end));
  if (needle.length === 0 || owners.length === 0) return [];

  let from = -1;
  for (let at = layer.indexOf(needle); at >= 0; at = layer.indexOf(needle, at + 1)) {
    if (from < 0 || Math.abs(at - before) < Math.abs(from - before)) from = at;
  }
  let length = needle.length;
  if (from < 0) {
    from = Math.min(before, owners.length - 1);
    length = Math.min(needle.length, owners.length - from);
  }

  const out: ItemRange[] = [];
  for (let k = from; k < from + length; k++) {
    const { item, index } = owners[k]!;
    const last = out[out.length - 1];
    if (last && last.item === item) last.end = index + 1;
    else out.push({ item, start: index, end: index + 1 });
  }
  return out;
}

/**
 * Wraps the given slices of the text layer's spans in <mark class="highlight"> (DOM nodes, never HTML
 * strings); returns the marks, first one first.
 */
export function markItems(spans: readonly HTMLElement[], ranges: readonly ItemRange[]): HTMLElement[] {
  const marks: HTMLElement[] = [];
  for (const { item, start, end } of ranges) {
    const span = spans[item];
    if (!span) continue;
    const text = span.textContent ?? "";
    const mark = document.createElement("mark");
    mark.className = "highlight";
    mark.textContent = text.slice(start, end);
    span.replaceChildren(document.createTextNode(text.slice(0, start)), mark, document.createTextNode(text.slice(end)));
    marks.push(mark);
  }
  return marks;
}
