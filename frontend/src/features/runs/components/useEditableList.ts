import { useEffect, useRef, useState, type KeyboardEvent } from "react";

/** An item of an editable list: `key` stays the same while the item moves. */
export interface Keyed {
  key: string;
}

/** ``items`` with the one at ``index`` swapped with its neighbour ``by`` away (unchanged at the ends). */
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
 * An ordered list the user edits (the plan's tasks, the outline's sections): update an item's fields, move
 * it by one (buttons, or Alt+ArrowUp / Alt+ArrowDown in its title, the focus following the moved item) or
 * to another place (drag and drop), remove it, append one. ``titleRef`` registers an item's title input so
 * the focus can follow it.
 */
export function useEditableList<T extends Keyed>(initial: () => T[]) {
  const [items, setItems] = useState<T[]>(initial);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const inputs = useRef(new Map<string, HTMLInputElement>());

  useEffect(() => {
    if (focusKey === null) return;
    const input = inputs.current.get(focusKey);
    input?.focus();
    // the focused input keeps the focus as its item moves, and focus() does not scroll then: keep it in view
    input?.closest("li")?.scrollIntoView?.({ block: "nearest" });
  }, [focusKey, items]);

  const update = (key: string, patch: Partial<T>) =>
    setItems((list) => list.map((item) => (item.key === key ? { ...item, ...patch } : item)));
  const shift = (index: number, by: -1 | 1) => {
    const key = items[index]?.key ?? null;
    setItems((list) => move(list, index, by));
    setFocusKey(key);
  };
  const moveItem = (from: number, to: number) => {
    const key = items[from]?.key ?? null;
    setItems((list) => moveTo(list, from, to));
    setFocusKey(key);
  };
  const remove = (index: number) => {
    setItems((list) => list.filter((_, i) => i !== index));
    setFocusKey(null);
  };
  const append = (item: T) => setItems((list) => [...list, item]);
  const titleRef = (key: string) => (el: HTMLInputElement | null) => {
    if (el) inputs.current.set(key, el);
    else inputs.current.delete(key);
  };
  const onTitleKey = (event: KeyboardEvent<HTMLInputElement>, index: number) => {
    if (!event.altKey) return;
    if (event.key === "ArrowUp") {
      event.preventDefault();
      shift(index, -1);
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      shift(index, 1);
    }
  };
  return { items, update, shift, moveItem, remove, append, titleRef, onTitleKey };
}
