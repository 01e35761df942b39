/**
 * The Markdown of a report, read into blocks and inlines (pure). The backend writes it (research/report
 * rendering), so only what it writes and what a model's sentence may carry is read: ATX headings, paragraphs,
 * ordered and bullet lists, block quotes, fenced code, and inline code, links, strong and emphasis, and the
 * citation markers ("[3]", "[uncited]", "[ohne Beleg]"). Everything else stays text: raw HTML is shown as
 * the characters it is, never as markup, and a link whose address is not http(s), mailto or a fragment is
 * its text alone. Nothing here builds HTML; the renderer (ReportMarkdown) makes React elements of it.
 */

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong" | "em"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] }
  | { kind: "cite"; n: number; text: string }
  | { kind: "uncited"; text: string };

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; inlines: Inline[]; text: string }
  | { kind: "paragraph"; inlines: Inline[] }
  | { kind: "list"; ordered: boolean; start: number; items: Inline[][] }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "code"; text: string };

const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const ORDERED = /^(\d{1,9})[.)][ \t]+(.*)$/;
const BULLET = /^[-*+][ \t]+(.*)$/;
const FENCE = /^(```|~~~)/;
const QUOTE = /^>[ \t]?(.*)$/;

/** The blocks of `markdown`. */
export function parseMarkdown(markdown: string): Block[] {
  return readBlocks(markdown.replace(/\r\n?/g, "\n").split("\n"));
}

function readBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line.trim());
    if (fence) {
      const end = lines.findIndex((l, k) => k > i && l.trim().startsWith(fence[1]!));
      const stop = end < 0 ? lines.length : end;
      blocks.push({ kind: "code", text: lines.slice(i + 1, stop).join("\n") });
      i = stop + 1;
      continue;
    }
    const heading = HEADING.exec(line.trim());
    if (heading) {
      const text = heading[2]!;
      blocks.push({ kind: "heading", level: heading[1]!.length as 1, inlines: parseInline(text), text: plainText(text) });
      i += 1;
      continue;
    }
    if (QUOTE.test(line.trimStart())) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!.trimStart())) {
        quoted.push(QUOTE.exec(lines[i]!.trimStart())![1]!);
        i += 1;
      }
      blocks.push({ kind: "quote", blocks: readBlocks(quoted) });
      continue;
    }
    const ordered = ORDERED.exec(line.trim());
    if (ordered || BULLET.test(line.trim())) {
      const items: string[] = [];
      const pattern = ordered ? ORDERED : BULLET;
      while (i < lines.length && lines[i]!.trim() !== "") {
        const item = pattern.exec(lines[i]!.trim());
        if (item) items.push(item[ordered ? 2 : 1]!);
        else if (items.length > 0) items[items.length - 1] += ` ${lines[i]!.trim()}`; // a wrapped item
        i += 1;
      }
      blocks.push({
        kind: "list",
        ordered: Boolean(ordered),
        start: ordered ? Number(ordered[1]) : 1,
        items: items.map(parseInline),
      });
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "" && !startsBlock(lines[i]!)) {
      paragraph.push(lines[i]!.trim());
      i += 1;
    }
    blocks.push({ kind: "paragraph", inlines: parseInline(paragraph.join("\n")) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  const trimmed = line.trim();
  return HEADING.test(trimmed) || FENCE.test(trimmed) || QUOTE.test(line.trimStart());
}

/** code, link, citation marker, strong, emphasis: the first that matches at a position wins. */
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]*)\]\(([^)\s]*)\)|\[(\d{1,4}|uncited|ohne Beleg)\]|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=\S)([^*]*?\S)\*|(?<![\p{L}\p{N}])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}])/gu;

/** The inlines of a block's text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index;
    if (at > last) out.push({ kind: "text", text: text.slice(last, at) });
    last = at + match[0].length;
    const [whole, code, label, href, marker, strong1, strong2, em1, em2] = match;
    if (code !== undefined) out.push({ kind: "code", text: code });
    else if (label !== undefined && href !== undefined) {
      const children = parseInline(label);
      out.push(safeHref(href) ? { kind: "link", href, children } : { kind: "text", text: label });
    } else if (marker !== undefined) {
      out.push(/^\d+$/.test(marker) ? { kind: "cite", n: Number(marker), text: whole } : { kind: "uncited", text: whole });
    } else if (strong1 !== undefined || strong2 !== undefined) {
      out.push({ kind: "strong", children: parseInline((strong1 ?? strong2)!) });
    } else {
      out.push({ kind: "em", children: parseInline((em1 ?? em2)!) });
    }
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}

/** A link the report may follow: a fragment of the page, or a web or mail address. */
export function safeHref(href: string): boolean {
  return /^(#|https?:\/\/|mailto:)/i.test(href.trim());
}

/** The text a heading shows (its marks removed), as the report's headings are compared. */
export function plainText(text: string): string {
  return flatten(parseInline(text)).trim();
}

function flatten(inlines: Inline[]): string {
  return inlines
    .map((inline) => ("children" in inline ? flatten(inline.children) : inline.text))
    .join("");
}
