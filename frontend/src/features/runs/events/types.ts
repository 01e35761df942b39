/**
 * The run's events and interrupts are generated from the backend's OpenAPI document (`npm run generate`:
 * `RunEventPayload`, discriminated by `type`; `Interrupt`, by `kind`); the names below are aliases of the
 * generated types, so a field renamed in the backend fails `tsc`. What is the app's own is declared here:
 * the view folded from the events (RunView, TaskProgress, PhaseSpan, SectionProgress, ...).
 */
import type {
  ClarificationAnswer,
  DraftClaim as GeneratedDraftClaim,
  Interrupt as GeneratedInterrupt,
  OutlineAnswer,
  ResearchResult,
  RunEventPayload,
  RunSummary,
  SectionEventPayload,
  TaskEdit,
} from "../../../api/generated/types.gen";

export type {
  ClarificationRound,
  RetrievedPassage,
  RunEventPayload,
  RunListChange,
  SectionSpec as OutlineSection,
  TaskSpec,
  TodoItem as TodoTask,
} from "../../../api/generated/types.gen";

/** The statuses and phases of a run (research/models.py). */
export type RunStatus = RunSummary["status"];
export const PHASES = ["clarify", "assess", "plan", "dig", "validate", "synthesize", "attribute", "done"] as const;
/** The phases of a report run (report mode). */
export const REPORT_PHASES = ["outline", "sections", "review", "compile", "done"] as const;
export type Phase = (typeof PHASES)[number] | (typeof REPORT_PHASES)[number];
export type TaskState = "pending" | "running" | "done" | "error";

/** One event of GET /api/runs/{id}/events: `data` of the SSE message, numbered per run by `seq`. */
export type RunEvent = RunEventPayload;
/** The event of one type. */
export type RunEventOf<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;
/** What every event carries besides its own fields. */
type Envelope = "type" | "run_id" | "seq" | "created_at";

/** The pending interrupt (GET /api/runs/{id} `interrupt`, and the `interrupt` event), by `kind`. */
export type Interrupt = GeneratedInterrupt;
export type ClarificationInterrupt = Extract<Interrupt, { kind: "clarification" }>;
export type PlanInterrupt = Extract<Interrupt, { kind: "plan" }>;
export type OutlineInterrupt = Extract<Interrupt, { kind: "outline" }>;

/** The states of a report section in its `section` events. */
export const SECTION_STATES = [
  "researching",
  "searching_web",
  "writing",
  "graded",
  "refining",
  "done",
  "refined",
] as const satisfies readonly SectionEventPayload["state"][];
export type SectionState = SectionEventPayload["state"];

/** A report section's progress, folded from its `section` events. */
export interface SectionProgress {
  id: string;
  title: string;
  state: SectionState;
  /** The latest grade: true passed, false failed, null not graded yet. */
  passed: boolean | null;
  /** Search rounds started (its `researching` events), over all passes. */
  rounds: number;
  /** Refinement passes that rewrote the section. */
  refined: number;
  evidence?: number;
  instructions?: string;
}

/** A sentence of a draft section and the evidence ids it cites (only the final report maps them to sources). */
export type DraftClaim = Required<GeneratedDraftClaim>;

/** A report section as the model wrote it (`draft_section`): shown while the run synthesizes; the final,
 * checked report replaces it. */
export type DraftSection = Omit<RunEventOf<"draft_section">, Envelope | "claims"> & { claims: DraftClaim[] };

/** The latest step of a task and the figures its steps reported. */
export interface TaskProgress {
  step: string;
  state?: TaskState;
  queries?: string[];
  passages?: number;
  followed?: number;
  skipped?: number;
  batch?: number;
  evidence?: number;
  steps: number;
}

/** A reference a task followed, numbered by its event. */
export type ReferenceFollowed = Pick<RunEventOf<"reference_followed">, "seq" | "task_id" | "from" | "mention" | "to" | "depth">;

/** The corpus assessment (the `assessment` event without its envelope). */
export type Assessment = Omit<RunEventOf<"assessment">, Envelope>;

export interface PhaseSpan {
  phase: Phase;
  startedAt: string;
  endedAt: string | null;
}

/** What the run page shows, folded from the run's events. */
export interface RunView {
  lastSeq: number;
  status: RunStatus | null;
  phase: Phase | null;
  phases: PhaseSpan[];
  language: string | null;
  assessment: Assessment | null;
  clarifications: ClarificationRoundView[];
  plan: TaskSpecView[] | null;
  todo: TodoTaskView[];
  /** Report mode: the sections in the order of their first event (the outline's order once it is known). */
  sections: SectionProgress[];
  /** Research runs: the report's sections as written, in index order (a rewrite replaces its first version);
   * emptied when the final report arrives. */
  drafts: DraftSection[];
  progress: Record<string, TaskProgress>;
  references: ReferenceFollowed[];
  warnings: string[];
  remediation: string[] | null;
  interrupt: Interrupt | null;
  report: ResearchResult | null;
  error: string | null;
  /** The run ended (done, cancelled or error): its stream closes after this event. */
  terminal: boolean;
  startedAt: string | null;
  updatedAt: string | null;
}

type ClarificationRoundView = RunEventOf<"clarification">["round"];
type TaskSpecView = RunEventOf<"plan">["tasks"][number];
type TodoTaskView = RunEventOf<"todo">["tasks"][number];

export type ResumeBody = ClarificationAnswer | { tasks: TaskEdit[] | null } | OutlineAnswer | Record<string, never>;
