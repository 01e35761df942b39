import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { PlanInterrupt, ResumeBody } from "../events/types";
import { draftOf, move, planAnswer, type DraftTask } from "./planEdits";

let added = 0;

/**
 * The plan approval form: edit titles and descriptions, remove, add and reorder tasks (buttons, or
 * Alt+ArrowUp / Alt+ArrowDown in a title), then approve. Sends PlanAnswer: `{tasks: null}` unchanged,
 * else the edited list.
 */
export function PlanForm({
  interrupt,
  onSubmit,
  pending,
}: {
  interrupt: PlanInterrupt;
  onSubmit: (body: ResumeBody) => void;
  pending: boolean;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<DraftTask[]>(() => draftOf(interrupt.tasks));
  const [newTitle, setNewTitle] = useState("");
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const inputs = useRef(new Map<string, HTMLInputElement>());

  useEffect(() => {
    if (focusKey !== null) inputs.current.get(focusKey)?.focus();
  }, [focusKey, draft]);

  const update = (key: string, patch: Partial<DraftTask>) =>
    setDraft((d) => d.map((task) => (task.key === key ? { ...task, ...patch } : task)));
  const shift = (index: number, by: -1 | 1) => {
    const key = draft[index]?.key ?? null;
    setDraft((d) => move(d, index, by));
    setFocusKey(key);
  };
  const remove = (index: number) => {
    setDraft((d) => d.filter((_, i) => i !== index));
    setFocusKey(null);
  };
  const add = () => {
    const title = newTitle.trim();
    if (!title) return;
    added += 1;
    setDraft((d) => [...d, { key: `new-${added}`, id: null, title, description: "" }]);
    setNewTitle("");
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(planAnswer(interrupt.tasks, draft));
  };
  const full = draft.length >= interrupt.limit;
  const empty = draft.every((task) => task.title.trim() === "");

  return (
    <section className="panel" data-testid="plan-form" aria-labelledby="plan-title">
      <h2 id="plan-title">{t("plan.title")}</h2>
      <p className="muted">{t("plan.help", { limit: interrupt.limit })}</p>
      {interrupt.error && (
        <p role="alert" className="alert alert-warning">
          {interrupt.error}
        </p>
      )}
      <form onSubmit={submit}>
        <ol className="plan-tasks">
          {draft.map((task, index) => {
            const n = index + 1;
            return (
              <li key={task.key} className="plan-task">
                <div className="plan-task-fields">
                  <label htmlFor={`task-title-${task.key}`}>{t("plan.taskTitle", { n })}</label>
                  <input
                    id={`task-title-${task.key}`}
                    ref={(el) => {
                      if (el) inputs.current.set(task.key, el);
                      else inputs.current.delete(task.key);
                    }}
                    value={task.title}
                    maxLength={500}
                    aria-describedby="plan-keys"
                    onChange={(e) => update(task.key, { title: e.target.value })}
                    onKeyDown={(e) => onTitleKey(e, index)}
                  />
                  <label htmlFor={`task-desc-${task.key}`} className="small">
                    {t("plan.taskDescription", { n })}
                  </label>
                  <textarea
                    id={`task-desc-${task.key}`}
                    rows={2}
                    maxLength={2000}
                    value={task.description}
                    onChange={(e) => update(task.key, { description: e.target.value })}
                  />
                </div>
                <div className="plan-task-actions">
                  <button type="button" onClick={() => shift(index, -1)} disabled={index === 0} aria-label={t("plan.moveUp", { n })}>
                    ↑
                  </button>
                  <button
                    type="button"
                    onClick={() => shift(index, 1)}
                    disabled={index === draft.length - 1}
                    aria-label={t("plan.moveDown", { n })}
                  >
                    ↓
                  </button>
                  <button type="button" onClick={() => remove(index)} aria-label={t("plan.remove", { n })}>
                    ✕
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
        <p id="plan-keys" className="muted small">
          {t("plan.keys")}
        </p>
        <div className="add-task">
          <label htmlFor="new-task">{t("plan.newTask")}</label>
          <input
            id="new-task"
            value={newTitle}
            maxLength={500}
            disabled={full}
            onChange={(e) => setNewTitle(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                add();
              }
            }}
          />
          <button type="button" onClick={add} disabled={full || !newTitle.trim()}>
            {t("plan.add")}
          </button>
        </div>
        {full && <p className="muted">{t("plan.full", { limit: interrupt.limit })}</p>}
        <button type="submit" className="primary" disabled={pending || empty}>
          {t("plan.approve")}
        </button>
      </form>
    </section>
  );
}
