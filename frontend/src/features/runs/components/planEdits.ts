import type { TaskEdit } from "../../../api/generated/types.gen";
import type { TaskSpec } from "../events/types";

/** A task as the plan form edits it: `id` null for a task the user added. */
export interface DraftTask {
  key: string;
  id: string | null;
  title: string;
  description: string;
}

export function draftOf(tasks: TaskSpec[]): DraftTask[] {
  return tasks.map((t) => ({ key: t.id, id: t.id, title: t.title, description: t.description ?? "" }));
}

/**
 * The body of the plan answer (PlanAnswer): `{tasks: null}` when the plan is approved as proposed, else
 * the edited plan in its order: kept tasks with their id (the server keeps their queries unless the title
 * changed), added tasks without one. Blank titles are left out.
 */
export function planAnswer(proposed: TaskSpec[], draft: DraftTask[]): { tasks: TaskEdit[] | null } {
  const tasks = draft
    .map((t) => ({ ...t, title: t.title.trim(), description: t.description.trim() }))
    .filter((t) => t.title !== "");
  const unchanged =
    tasks.length === proposed.length &&
    tasks.every((t, i) => {
      const p = proposed[i]!;
      return t.id === p.id && t.title === p.title.trim() && t.description === (p.description ?? "").trim();
    });
  if (unchanged) return { tasks: null };
  return {
    tasks: tasks.map((t) =>
      t.id === null ? { title: t.title, description: t.description } : { id: t.id, title: t.title, description: t.description },
    ),
  };
}
