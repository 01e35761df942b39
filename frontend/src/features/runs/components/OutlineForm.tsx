import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { OutlineInterrupt, ResumeBody } from "../events/types";
import { draftOfOutline, outlineApproval, outlineFeedback, type DraftSection } from "./outlineEdits";
import { move, moveTo } from "./planEdits";

let added = 0;

/**
 * The report outline form: rename sections, edit their descriptions, toggle their research, remove, add and
 * reorder them (buttons, or Alt+ArrowUp / Alt+ArrowDown in a title), then approve; or send feedback text,
 * which re-plans the outline. Sends OutlineAnswer (approve, edit or feedback).
 */
export function OutlineForm({
  interrupt,
  onSubmit,
  pending,
}: {
  interrupt: OutlineInterrupt;
  onSubmit: (body: ResumeBody) => void;
  pending: boolean;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<DraftSection[]>(() => draftOfOutline(interrupt.sections));
  const [newTitle, setNewTitle] = useState("");
  const [feedback, setFeedback] = useState("");
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const inputs = useRef(new Map<string, HTMLInputElement>());

  useEffect(() => {
    if (focusKey !== null) inputs.current.get(focusKey)?.focus();
  }, [focusKey, draft]);

  const update = (key: string, patch: Partial<DraftSection>) =>
    setDraft((d) => d.map((s) => (s.key === key ? { ...s, ...patch } : s)));
  const shift = (index: number, by: -1 | 1) => {
    const key = draft[index]?.key ?? null;
    setDraft((d) => move(d, index, by));
    setFocusKey(key);
  };
  const [dragged, setDragged] = useState<number | null>(null);
  const drop = (index: number) => {
    if (dragged === null) return;
    const key = draft[dragged]?.key ?? null;
    setDraft((d) => moveTo(d, dragged, index));
    setDragged(null);
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
    setDraft((d) => [...d, { key: `new-${added}`, id: null, title, description: "", research: true, questions: [] }]);
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
  const approve = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(outlineApproval(interrupt.sections, draft));
  };
  const replan = () => {
    if (feedback.trim()) onSubmit(outlineFeedback(feedback));
  };
  const full = draft.length >= interrupt.limit;
  const empty = draft.every((s) => s.title.trim() === "");
  const roundsLeft = interrupt.round < interrupt.max_rounds;

  return (
    <section className="panel" data-testid="outline-form" aria-labelledby="outline-title">
      <h2 id="outline-title">{t("outline.title")}</h2>
      <p>
        <strong>{interrupt.title}</strong>
      </p>
      <p className="muted">{t("outline.help", { limit: interrupt.limit })}</p>
      {interrupt.error && (
        <p role="alert" className="alert alert-warning">
          {interrupt.error}
        </p>
      )}
      <form onSubmit={approve}>
        <ol className="plan-tasks">
          {draft.map((section, index) => {
            const n = index + 1;
            return (
              <li
                key={section.key}
                className={dragged === index ? "plan-task dragging" : "plan-task"}
                onDragOver={(e) => {
                  if (dragged !== null) e.preventDefault();
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  drop(index);
                }}
              >
                <span
                  className="drag-handle"
                  draggable
                  title={t("outline.drag")}
                  aria-hidden="true"
                  data-testid={`outline-drag-${n}`}
                  onDragStart={(e) => {
                    e.dataTransfer?.setData("text/plain", section.key);
                    setDragged(index);
                  }}
                  onDragEnd={() => setDragged(null)}
                >
                  ⠿
                </span>
                <div className="plan-task-fields">
                  <label htmlFor={`section-title-${section.key}`}>{t("outline.sectionTitle", { n })}</label>
                  <input
                    id={`section-title-${section.key}`}
                    ref={(el) => {
                      if (el) inputs.current.set(section.key, el);
                      else inputs.current.delete(section.key);
                    }}
                    value={section.title}
                    maxLength={300}
                    aria-describedby="outline-keys"
                    onChange={(e) => update(section.key, { title: e.target.value })}
                    onKeyDown={(e) => onTitleKey(e, index)}
                  />
                  <label htmlFor={`section-desc-${section.key}`} className="small">
                    {t("outline.sectionDescription", { n })}
                  </label>
                  <textarea
                    id={`section-desc-${section.key}`}
                    rows={2}
                    maxLength={2000}
                    value={section.description}
                    onChange={(e) => update(section.key, { description: e.target.value })}
                  />
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={section.research}
                      aria-label={t("outline.research", { n })}
                      onChange={(e) => update(section.key, { research: e.target.checked })}
                    />
                    {section.research ? t("outline.researched") : t("outline.framing")}
                  </label>
                  {section.questions.length > 0 && (
                    <ul className="muted small" aria-label={t("outline.questions", { n })}>
                      {section.questions.map((q, i) => (
                        <li key={i}>{q}</li>
                      ))}
                    </ul>
                  )}
                </div>
                <div className="plan-task-actions">
                  <button type="button" onClick={() => shift(index, -1)} disabled={index === 0} aria-label={t("outline.moveUp", { n })}>
                    ↑
                  </button>
                  <button
                    type="button"
                    onClick={() => shift(index, 1)}
                    disabled={index === draft.length - 1}
                    aria-label={t("outline.moveDown", { n })}
                  >
                    ↓
                  </button>
                  <button type="button" onClick={() => remove(index)} aria-label={t("outline.remove", { n })}>
                    ✕
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
        <p id="outline-keys" className="muted small">
          {t("outline.keys")}
        </p>
        <div className="add-task">
          <label htmlFor="new-section">{t("outline.newSection")}</label>
          <input
            id="new-section"
            value={newTitle}
            maxLength={300}
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
            {t("outline.add")}
          </button>
        </div>
        {full && <p className="muted">{t("outline.full", { limit: interrupt.limit })}</p>}
        <button type="submit" className="primary" disabled={pending || empty}>
          {t("outline.approve")}
        </button>
      </form>
      <div className="outline-feedback">
        <label htmlFor="outline-feedback">{t("outline.feedback")}</label>
        <textarea
          id="outline-feedback"
          rows={2}
          maxLength={4000}
          value={feedback}
          disabled={!roundsLeft}
          onChange={(e) => setFeedback(e.target.value)}
        />
        <p className="muted small">
          {roundsLeft
            ? t("outline.roundsLeft", { n: interrupt.max_rounds - interrupt.round })
            : t("outline.noRoundsLeft")}
        </p>
        <button type="button" onClick={replan} disabled={pending || !roundsLeft || !feedback.trim()}>
          {t("outline.replan")}
        </button>
      </div>
    </section>
  );
}
