import type { FormEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { PlanInterrupt, ResumeBody } from "../events/types";
import { AddItem, ItemActions, ItemFields } from "./EditableListControls";
import { draftOf, planAnswer, type DraftTask } from "./planEdits";
import { useEditableList } from "./useEditableList";
import { useFocusOnMount } from "./useFocusOnMount";

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
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const list = useEditableList<DraftTask>(() => draftOf(interrupt.tasks));
  const draft = list.items;
  const add = (title: string) => {
    added += 1;
    list.append({ key: `new-${added}`, id: null, title, description: "" });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(planAnswer(interrupt.tasks, draft));
  };
  const full = draft.length >= interrupt.limit;
  const empty = draft.every((task) => task.title.trim() === "");

  return (
    <section className="panel" data-testid="plan-form" aria-labelledby="plan-title">
      <h2 id="plan-title" tabIndex={-1} ref={heading}>{t("plan.title")}</h2>
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
                  <ItemFields
                    id={`task-${task.key}`}
                    title={task.title}
                    description={task.description}
                    titleMaxLength={500}
                    labels={{ title: t("plan.taskTitle", { n }), description: t("plan.taskDescription", { n }) }}
                    keysHintId="plan-keys"
                    titleRef={list.titleRef(task.key)}
                    onTitleKey={(e) => list.onTitleKey(e, index)}
                    onChange={(patch) => list.update(task.key, patch)}
                  />
                </div>
                <ItemActions
                  index={index}
                  count={draft.length}
                  onShift={list.shift}
                  onRemove={list.remove}
                  labels={{ up: t("plan.moveUp", { n }), down: t("plan.moveDown", { n }), remove: t("plan.remove", { n }) }}
                />
              </li>
            );
          })}
        </ol>
        <p id="plan-keys" className="muted small">
          {t("plan.keys")}
        </p>
        <AddItem id="new-task" label={t("plan.newTask")} button={t("plan.add")} maxLength={500} disabled={full} onAdd={add} />
        {full && <p className="muted">{t("plan.full", { limit: interrupt.limit })}</p>}
        <button type="submit" className="primary" disabled={pending || empty}>
          {t("plan.approve")}
        </button>
      </form>
    </section>
  );
}
