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

export function move<T>(items: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= items.length) return [...items];
  const next = [...items];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** ``items`` with the one at ``from`` taken out and put at ``to`` (drag and drop). */
export function moveTo<T>(items: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= items.length || to >= items.length) return [...items];
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
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
