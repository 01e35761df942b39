import type { OutlineAnswer, SectionEdit } from "../../../api/generated/types.gen";
import type { OutlineSection } from "../events/types";

/** A section as the outline form edits it: `id` null for a section the user added. */
export interface DraftSection {
  key: string;
  id: string | null;
  title: string;
  description: string;
  research: boolean;
  questions: string[];
}

export function draftOfOutline(sections: OutlineSection[]): DraftSection[] {
  return sections.map((s) => ({
    key: s.id,
    id: s.id,
    title: s.title,
    description: s.description ?? "",
    research: s.research ?? true,
    questions: s.questions ?? [],
  }));
}

/**
 * The body of the outline answer when the user approves (OutlineAnswer): `{action: "approve"}` when the
 * outline is as proposed, else `{action: "edit", sections}` in the edited order: kept sections with their id
 * (the server keeps their questions while the title is unchanged), added ones without. Blank titles are left out.
 */
export function outlineApproval(proposed: OutlineSection[], draft: DraftSection[]): OutlineAnswer {
  const sections = draft
    .map((s) => ({ ...s, title: s.title.trim(), description: s.description.trim() }))
    .filter((s) => s.title !== "");
  const unchanged =
    sections.length === proposed.length &&
    sections.every((s, i) => {
      const p = proposed[i]!;
      return (
        s.id === p.id &&
        s.title === p.title.trim() &&
        s.description === (p.description ?? "").trim() &&
        s.research === (p.research ?? true)
      );
    });
  if (unchanged) return { action: "approve" };
  return {
    action: "edit",
    sections: sections.map((s): SectionEdit => {
      const edit: SectionEdit = { title: s.title, description: s.description, research: s.research };
      return s.id === null ? edit : { id: s.id, ...edit };
    }),
  };
}

/** The body that re-plans the outline with the user's feedback. */
export function outlineFeedback(text: string): OutlineAnswer {
  return { action: "feedback", feedback: text.trim() };
}
