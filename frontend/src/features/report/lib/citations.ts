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
