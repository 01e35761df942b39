/**
 * The run's events and interrupts are generated from the backend's OpenAPI document (`npm run generate`:
 * `RunEventPayload`, discriminated by `type`; `Interrupt`, by `kind`); the names below are aliases of the
 * generated types, so a field renamed in the backend fails `tsc`. What is the app's own is declared here:
 * the view folded from the events (RunView, TaskProgress, PhaseSpan, SectionProgress, ...).
 */
import type {
  ClarificationAnswer,
  DraftCitation as GeneratedDraftCitation,
  DraftClaim as GeneratedDraftClaim,
  DraftTextClaim as GeneratedDraftTextClaim,
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
  ReferencePlace,
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

/** What clarification does while the user waits: the model writes the round's searches (planning), the
 * corpus is searched query by query (searching), the model reads what was found and writes the next questions
 * (analyzing), clarification is over and the model fixes what the research is about (anchoring). */
export type ClarifyStep = RunEventOf<"clarification_progress">["step"];
/** A `clarification_progress` event (research/clarify/progress.py ClarificationProgress). */
export type ClarificationProgressEvent = RunEventOf<"clarification_progress">;
/** A `clarification_answer` event: the user's answer to a round; `ended`: it was "/end" (enough, start). */
export type ClarificationAnswerEvent = RunEventOf<"clarification_answer">;
/** What clarification is doing now, folded from its latest `clarification_progress` event. */
export type ClarifyActivity = Omit<ClarificationProgressEvent, Envelope>;

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

/** Where a checked evidence id of the streamed draft points (`draft_text` citations): an id the run did not
 * retrieve never has one. */
export type DraftCitation = Required<GeneratedDraftCitation>;
/** A sentence of a section as the model writes it: `complete` false while it is still being written. */
export type DraftTextClaim = Required<GeneratedDraftTextClaim>;
/** The `draft_text` event: a section's sentences so far, and the checked ids first cited since its previous
 * event (backend research/synthesis/preview.py DraftTextEvent). */
export type DraftTextEvent = RunEventOf<"draft_text">;

/** A section being written: its text so far (the latest `draft_text` of its index). */
export interface DraftStream {
  index: number;
  heading: string;
  attempt: number;
  claims: DraftTextClaim[];
}

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
  /** How long the run waited for the user (an interrupt) during this span: not the phase's own time. */
  waitedMs: number;
}

/** What the run page shows, folded from the run's events. */
export interface RunView {
  lastSeq: number;
  status: RunStatus | null;
  phase: Phase | null;
  phases: PhaseSpan[];
  language: string | null;
  assessment: Assessment | null;
  /** The rounds in order, each with the user's answer once it is given ("/end": enough, start the research). */
  clarifications: ClarificationRoundView[];
  /** What clarification is doing while the user waits; null while it waits for an answer or is over. */
  clarifyActivity: ClarifyActivity | null;
  plan: TaskSpecView[] | null;
  todo: TodoTaskView[];
  /** Report mode: the sections in the order of their first event (the outline's order once it is known). */
  sections: SectionProgress[];
  /** Research runs: the report's sections as written, in index order (a rewrite replaces its first version);
   * emptied when the final report arrives. */
  drafts: DraftSection[];
  /** Research runs: the sections being written, as the model writes them (`draft_text`), in index order; a
   * section's stream ends with its `draft_section`. Emptied when the final report arrives. */
  streams: DraftStream[];
  /** Every checked evidence id the streamed draft cited, with where it points (kept after the report). */
  draftCitations: Record<string, DraftCitation>;
  progress: Record<string, TaskProgress>;
  references: ReferenceFollowed[];
  warnings: string[];
  remediation: string[] | null;
  interrupt: Interrupt | null;
  report: ResearchResult | null;
  error: string | null;
  /** The run ended (done, cancelled or error): its stream closes after this event. */
  terminal: boolean;
  /** When the run began to wait for the user (its latest interrupt); null while it does not wait. */
  waitingSince: string | null;
  startedAt: string | null;
  updatedAt: string | null;
}

type ClarificationRoundView = RunEventOf<"clarification">["round"];
type TaskSpecView = RunEventOf<"plan">["tasks"][number];
type TodoTaskView = RunEventOf<"todo">["tasks"][number];

export type ResumeBody = ClarificationAnswer | { tasks: TaskEdit[] | null } | OutlineAnswer | Record<string, never>;
