import type { OutlineAnswer, SectionEdit } from "../../../api/generated/types.gen";
import type { OutlineSection } from "../events/types";

/** The most questions a section may have and the longest one (the server's SectionEdit bounds). */
export const MAX_QUESTIONS = 6;
export const MAX_QUESTION_LENGTH = 500;

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

function cleanQuestions(questions: readonly string[]): string[] {
  return questions.map((q) => q.trim()).filter((q) => q !== "");
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

/**
 * The body of the outline answer when the user approves (OutlineAnswer): `{action: "approve"}` when the
 * outline is as proposed, else `{action: "edit", sections}` in the edited order: kept sections with their id,
 * added ones without. Blank titles and blank questions are left out. A section's questions are sent when
 * the user changed them or its title (the server searches what the form shows; none: its title); left out,
 * the server keeps a kept section's questions and their translations for the documents.
 */
export function outlineApproval(proposed: OutlineSection[], draft: DraftSection[]): OutlineAnswer {
  const sections = draft
    .map((s) => ({ ...s, title: s.title.trim(), description: s.description.trim(), questions: cleanQuestions(s.questions) }))
    .filter((s) => s.title !== "");
  const before = new Map(proposed.map((p) => [p.id, p]));
  const questionsChanged = (s: (typeof sections)[number]): boolean => {
    const p = s.id === null ? undefined : before.get(s.id);
    if (p === undefined) return s.questions.length > 0;
    return s.title !== p.title.trim() || !sameTexts(s.questions, cleanQuestions(p.questions ?? []));
  };
  const unchanged =
    sections.length === proposed.length &&
    sections.every((s, i) => {
      const p = proposed[i]!;
      return (
        s.id === p.id &&
        s.title === p.title.trim() &&
        s.description === (p.description ?? "").trim() &&
        s.research === (p.research ?? true) &&
        !questionsChanged(s)
      );
    });
  if (unchanged) return { action: "approve" };
  return {
    action: "edit",
    sections: sections.map((s): SectionEdit => {
      const edit: SectionEdit = { title: s.title, description: s.description, research: s.research };
      if (questionsChanged(s)) edit.questions = s.questions;
      return s.id === null ? edit : { id: s.id, ...edit };
    }),
  };
}

/** The body that re-plans the outline with the user's feedback. */
export function outlineFeedback(text: string): OutlineAnswer {
  return { action: "feedback", feedback: text.trim() };
}
