import type { PageSection } from "../../../api/generated/types.gen";

/** A section as its heading reads: its label and heading ("§ 7 Genehmigung von Anlagen"). */
function sectionTitle(section: PageSection): string {
  return [section.label, section.heading].filter((part) => part).join(" ");
}

/**
 * The headings a place of the document lies under, outermost first, ending with its own section's
 * ("Zweiter Abschnitt …", "§ 7 Genehmigung von Anlagen"): of the section holding the document offset
 * `offset`, else of the page's first section; empty when the page has no section.
 */
export function headingPath(sections: readonly PageSection[], offset: number | null): string[] {
  const section =
    (offset === null ? undefined : sections.find((s) => s.start <= offset && offset < s.end)) ?? sections[0];
  if (!section) return [];
  return [...section.path, sectionTitle(section)].filter((part) => part);
}
