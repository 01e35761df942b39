import { useState } from "react";

/** An item's ↑ / ↓ / ✕ buttons; the labels name the item ("Move task 2 up"). */
export function ItemActions({
  index,
  count,
  onShift,
  onRemove,
  labels,
}: {
  index: number;
  count: number;
  onShift: (index: number, by: -1 | 1) => void;
  onRemove: (index: number) => void;
  labels: { up: string; down: string; remove: string };
}) {
  return (
    <div className="plan-task-actions">
      <button type="button" onClick={() => onShift(index, -1)} disabled={index === 0} aria-label={labels.up}>
        ↑
      </button>
      <button type="button" onClick={() => onShift(index, 1)} disabled={index === count - 1} aria-label={labels.down}>
        ↓
      </button>
      <button type="button" onClick={() => onRemove(index)} aria-label={labels.remove}>
        ✕
      </button>
    </div>
  );
}

/** The "new item" field with its button (Enter adds too); ``onAdd`` gets the trimmed, non-empty title. */
export function AddItem({
  id,
  label,
  button,
  maxLength,
  disabled,
  onAdd,
}: {
  id: string;
  label: string;
  button: string;
  maxLength: number;
  disabled: boolean;
  onAdd: (title: string) => void;
}) {
  const [title, setTitle] = useState("");
  const add = () => {
    const trimmed = title.trim();
    if (!trimmed) return;
    onAdd(trimmed);
    setTitle("");
  };
  return (
    <div className="add-task">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={title}
        maxLength={maxLength}
        disabled={disabled}
        onChange={(e) => setTitle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            add();
          }
        }}
      />
      <button type="button" onClick={add} disabled={disabled || !title.trim()}>
        {button}
      </button>
    </div>
  );
}
