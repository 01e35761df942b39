/**
 * Finding a section or a sentence the checks name in the rendered report. The checks quote sentences as the
 * model wrote them; the report renders them with citation markers ("[3]", "[uncited]") before the final
 * punctuation, so both sides are compared without markers, Markdown emphasis, case and spacing.
 */

/** Where a problem of the checks points: its section's heading and, where it has one, its sentence. */
export interface Target {
  section?: string | null;
  sentence?: string | null;
}

const MARKERS = /\[(?:\d{1,4}|uncited|ohne Beleg)\]/g;

/** ``text`` as compared: no markers, emphasis or warning signs, spacing collapsed, lower case. */
export function normalise(text: string): string {
  return text
    .replace(MARKERS, " ")
    .replace(/[*_`⚠]/g, "")
    .replace(/\s+/g, " ")
    .replace(/ ([.,;:!?])/g, "$1")
    .trim()
    .toLowerCase();
}

/** A sentence as it is looked for: normalised, without its final punctuation (the markers stand before it). */
function sentenceKey(sentence: string): string {
  return normalise(sentence).replace(/[.!?;:]+$/, "").trim();
}

/** Whether the report's Markdown holds ``target``: its sentence, or else its section's heading. */
export function inMarkdown(markdown: string, target: Target): boolean {
  if (target.sentence) {
    const key = sentenceKey(target.sentence);
    if (key && normalise(markdown).includes(key)) return true;
  }
  if (target.section) {
    const heading = normalise(target.section);
    return markdown.split("\n").some((line) => /^#{1,6} /.test(line) && normalise(line.replace(/^#+ /, "")) === heading);
  }
  return false;
}

/** The rendered element of ``target`` under ``root``: the paragraph or item holding its sentence, else its
 * section's heading; null when the report does not show it. */
export function locate(root: ParentNode, target: Target): HTMLElement | null {
  if (target.sentence) {
    const key = sentenceKey(target.sentence);
    const blocks = Array.from(root.querySelectorAll<HTMLElement>("p, li"));
    const found = key ? blocks.find((el) => normalise(el.textContent ?? "").includes(key)) : undefined;
    if (found) return found;
  }
  if (target.section) {
    const heading = normalise(target.section);
    const headings = Array.from(root.querySelectorAll<HTMLElement>("h1, h2, h3, h4"));
    return headings.find((el) => normalise(headingText(el)) === heading) ?? null;
  }
  return null;
}

/** A heading's own text, without the badges the report adds to it. */
function headingText(el: HTMLElement): string {
  const copy = el.cloneNode(true) as HTMLElement;
  copy.querySelectorAll("[data-badge]").forEach((badge) => badge.remove());
  return copy.textContent ?? "";
}

/** Scrolls to ``el`` under ``root``, moves the focus there and marks it (the one marked before is unmarked). */
export function reveal(root: ParentNode, el: HTMLElement): void {
  root.querySelectorAll("[data-located]").forEach((other) => other.removeAttribute("data-located"));
  el.setAttribute("data-located", "true");
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.scrollIntoView({ block: "center", behavior: "smooth" });
  el.focus({ preventScroll: true });
}
