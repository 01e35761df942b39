import { useState, type KeyboardEvent, type Ref } from "react";

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

/** An item's title and description fields, labelled for screen readers; the title takes the list's keys. */
export function ItemFields({
  id,
  title,
  description,
  titleMaxLength,
  labels,
  keysHintId,
  titleRef,
  onTitleKey,
  onChange,
}: {
  id: string;
  title: string;
  description: string;
  titleMaxLength: number;
  labels: { title: string; description: string };
  keysHintId: string;
  titleRef: Ref<HTMLInputElement>;
  onTitleKey: (event: KeyboardEvent<HTMLInputElement>) => void;
  onChange: (patch: { title?: string; description?: string }) => void;
}) {
  return (
    <>
      <label htmlFor={`${id}-title`}>{labels.title}</label>
      <input
        id={`${id}-title`}
        ref={titleRef}
        value={title}
        maxLength={titleMaxLength}
        aria-describedby={keysHintId}
        onChange={(e) => onChange({ title: e.target.value })}
        onKeyDown={onTitleKey}
      />
      <label htmlFor={`${id}-desc`} className="small">
        {labels.description}
      </label>
      <textarea
        id={`${id}-desc`}
        rows={2}
        maxLength={2000}
        value={description}
        onChange={(e) => onChange({ description: e.target.value })}
      />
    </>
  );
}
