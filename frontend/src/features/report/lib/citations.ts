/**
 * A remark plugin that turns the report's citation markers ("[3]", "[1][2]") into links to "#cite-n",
 * which the report renders as buttons opening the cited page, and the mark of a sentence that cites nothing
 * ("[uncited]", "[ohne Beleg]": the report's language) into a link to "#uncited", which it renders as a
 * marked note. Markers inside code stay text.
 */
interface MdNode {
  type: string;
  value?: string;
  url?: string;
  children?: MdNode[];
}

const MARKER = /\[(\d{1,4}|uncited|ohne Beleg)\]/g;

/** Where the mark of an uncited sentence links to (rendered as a note, never followed). */
export const UNCITED_HREF = "#uncited";

export function splitCitations(text: string): MdNode[] {
  const out: MdNode[] = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const at = match.index;
    if (at > last) out.push({ type: "text", value: text.slice(last, at) });
    const url = /^\d+$/.test(match[1]!) ? `#cite-${match[1]}` : UNCITED_HREF;
    out.push({ type: "link", url, children: [{ type: "text", value: match[0] }] });
    last = at + match[0].length;
  }
  if (last < text.length) out.push({ type: "text", value: text.slice(last) });
  return out;
}

function walk(node: MdNode): void {
  if (!node.children) return;
  const next: MdNode[] = [];
  for (const child of node.children) {
    if (child.type === "text" && child.value && MARKER.test(child.value)) {
      MARKER.lastIndex = 0;
      next.push(...splitCitations(child.value));
    } else {
      if (child.type !== "link" && child.type !== "code" && child.type !== "inlineCode") walk(child);
      next.push(child);
    }
  }
  node.children = next;
}

export function remarkCitations() {
  return (tree: MdNode) => walk(tree);
}

export function citationNumber(href: string | undefined): number | null {
  const match = /^#cite-(\d+)$/.exec(href ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * The report without its closing sources section (a "## " heading followed only by "[n] ..." paragraphs,
 * as the backend renders it): the page lists the sources itself, with their support.
 */
export function withoutSourcesSection(markdown: string): string {
  const at = markdown.lastIndexOf("\n## ");
  if (at < 0) return markdown;
  const body = markdown.slice(at + 1).split("\n").slice(1).join("\n").trim();
  const paragraphs = body.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  if (paragraphs.length === 0 || !paragraphs.every((p) => /^\[\d+\]/.test(p.trim()))) return markdown;
  return markdown.slice(0, at).trimEnd();
}
