import type { ReactNode } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { PageTarget } from "../../viewer";
import type { RunView } from "../events/types";
import { PhaseTimeline } from "./PhaseTimeline";
import { ReferenceGraph } from "./ReferenceGraph";
import { SectionCards } from "./SectionCards";
import { TodoList } from "./TodoList";

/** A part of the run shown collapsed, its summary saying what is inside. */
export function Collapsed({ summary, testId, children }: { summary: string; testId: string; children: ReactNode }) {
  return (
    <details className="panel collapsed" data-testid={testId}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/**
 * The way the run goes (or went): the phases, ``clarification`` (the conversation, or its forms), ``forms``
 * (the plan or outline waiting for the user), the report sections' cards, the tasks as a compact list, and,
 * collapsed, the references followed and the warnings (``warnings`` false: the report shows them, so there is one
 * Warnings box).
 */
export function RunProgress({
  view,
  now,
  clarification,
  forms,
  warnings = true,
  onOpenPage,
}: {
  view: RunView;
  now: number;
  clarification?: ReactNode;
  forms?: ReactNode;
  warnings?: boolean;
  /** Opens a place of the reference graph on its page (the viewer). */
  onOpenPage?: (target: PageTarget) => void;
}) {
  const { t } = useI18n();
  return (
    <>
      <PhaseTimeline view={view} now={now} />
      {clarification}
      {forms}
      <SectionCards view={view} />
      <TodoList view={view} />
      {view.references.length > 0 && (
        <Collapsed summary={t("run.referencesFollowed", { n: view.references.length })} testId="run-references">
          <ReferenceGraph references={view.references} onOpenPage={onOpenPage} />
        </Collapsed>
      )}
      {warnings && view.warnings.length > 0 && (
        <Collapsed summary={t("run.warnings", { n: view.warnings.length })} testId="run-warnings">
          <ul>
            {view.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </Collapsed>
      )}
    </>
  );
}
