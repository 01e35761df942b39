import { useState, type FormEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { OutlineInterrupt, ResumeBody } from "../events/types";
import { AddItem, ItemActions, ItemFields } from "./EditableListControls";
import { draftOfOutline, outlineApproval, outlineFeedback, type DraftSection } from "./outlineEdits";
import { SectionQuestions } from "./SectionQuestions";
import { useEditableList } from "./useEditableList";
import { useFocusOnMount } from "./useFocusOnMount";

let added = 0;

/**
 * The report outline form: rename sections, edit their descriptions and (research sections) the questions they
 * are searched for, toggle their research,
 * remove, add and reorder them (drag a section's handle, buttons, or Alt+ArrowUp / Alt+ArrowDown in a title),
 * then approve; or send feedback text, which re-plans the outline. Sends OutlineAnswer (approve, edit or
 * feedback).
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
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const list = useEditableList<DraftSection>(() => draftOfOutline(interrupt.sections));
  const draft = list.items;
  const [feedback, setFeedback] = useState("");
  const [dragged, setDragged] = useState<number | null>(null);

  const drop = (index: number) => {
    if (dragged === null) return;
    list.moveItem(dragged, index);
    setDragged(null);
  };
  const add = (title: string) => {
    added += 1;
    list.append({ key: `new-${added}`, id: null, title, description: "", research: true, questions: [] });
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
      <h2 id="outline-title" tabIndex={-1} ref={heading}>{t("outline.title")}</h2>
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
                  <ItemFields
                    id={`section-${section.key}`}
                    title={section.title}
                    description={section.description}
                    titleMaxLength={300}
                    labels={{ title: t("outline.sectionTitle", { n }), description: t("outline.sectionDescription", { n }) }}
                    keysHintId="outline-keys"
                    titleRef={list.titleRef(section.key)}
                    onTitleKey={(e) => list.onTitleKey(e, index)}
                    onChange={(patch) => list.update(section.key, patch)}
                  />
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={section.research}
                      aria-label={t("outline.research", { n })}
                      onChange={(e) => list.update(section.key, { research: e.target.checked })}
                    />
                    {section.research ? t("outline.researched") : t("outline.framing")}
                  </label>
                  {section.research && (
                    <SectionQuestions
                      sectionKey={section.key}
                      n={n}
                      questions={section.questions}
                      onChange={(questions) => list.update(section.key, { questions })}
                    />
                  )}
                </div>
                <ItemActions
                  index={index}
                  count={draft.length}
                  onShift={list.shift}
                  onRemove={list.remove}
                  labels={{
                    up: t("outline.moveUp", { n }),
                    down: t("outline.moveDown", { n }),
                    remove: t("outline.remove", { n }),
                  }}
                />
              </li>
            );
          })}
        </ol>
        <p id="outline-keys" className="muted small">
          {t("outline.keys")}
        </p>
        <AddItem
          id="new-section"
          label={t("outline.newSection")}
          button={t("outline.add")}
          maxLength={300}
          disabled={full}
          onAdd={add}
        />
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
