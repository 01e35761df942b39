import type {
  ClarificationAnswer,
  OutlineAnswer,
  ResearchResult,
  RunSummary,
  TaskEdit,
} from "../../../api/generated/types.gen";

/** The statuses and phases of a run (research/models.py). */
export type RunStatus = RunSummary["status"];
export const PHASES = ["clarify", "assess", "plan", "dig", "validate", "synthesize", "attribute", "done"] as const;
/** The phases of a report run (report mode). */
export const REPORT_PHASES = ["outline", "sections", "review", "compile", "done"] as const;
export type Phase = (typeof PHASES)[number] | (typeof REPORT_PHASES)[number];
export type TaskState = "pending" | "running" | "done" | "error";

/** One event of GET /api/runs/{id}/events: `data` of the SSE message, numbered per run by `seq`. */
export interface RunEvent {
  type: string;
  run_id: string;
  seq: number;
  created_at: string;
  [field: string]: unknown;
}

export interface RetrievedPassage {
  chunk_id: string;
  /** Where the passage lies (absent in runs checkpointed before they were recorded). */
  collection?: string | null;
  document: string;
  page: number;
  page_end?: number | null;
  section?: string | null;
  score: number;
  snippet: string;
  /** The passage's offsets in the document text. */
  start?: number | null;
  end?: number | null;
}

export interface ClarificationRound {
  round: number;
  questions: string[];
  understanding: string;
  coverage: number;
  gaps: string[];
  queries: string[];
  passages: RetrievedPassage[];
  dedup_ratio: number;
  answer?: string | null;
}

export interface ClarificationInterrupt extends ClarificationRound {
  kind: "clarification";
  error?: string | null;
}

export interface TaskSpec {
  id: string;
  title: string;
  description?: string;
  queries?: string[];
  corpus_queries?: string[];
}

export interface PlanInterrupt {
  kind: "plan";
  question: string;
  tasks: TaskSpec[];
  limit: number;
  error?: string | null;
}

/** A section of a proposed report outline (report/models.py SectionSpec). */
export interface OutlineSection {
  id: string;
  title: string;
  description?: string;
  research?: boolean;
  questions?: string[];
  corpus_queries?: string[];
}

/** The outline interrupt of a report run (report/models.py OutlineProposal). */
export interface OutlineInterrupt {
  kind: "outline";
  topic: string;
  title: string;
  sections: OutlineSection[];
  limit: number;
  round: number;
  max_rounds: number;
  error?: string | null;
}

export type Interrupt = ClarificationInterrupt | PlanInterrupt | OutlineInterrupt;

/** The states of a report section in its `section` events. */
export const SECTION_STATES = ["researching", "searching_web", "writing", "graded", "refining", "done", "refined"] as const;
export type SectionState = (typeof SECTION_STATES)[number];

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
export interface DraftClaim {
  text: string;
  evidence_ids: string[];
}

/** A report section as the model wrote it (`draft_section`): shown while the run synthesizes; the final,
 * checked report replaces it. */
export interface DraftSection {
  index: number;
  heading: string;
  task_id: string;
  /** 1: the first version; 2: the rewrite of the remediation pass. */
  attempt: number;
  /** The model's answer was cut at its output limit (its complete sentences are kept). */
  truncated: boolean;
  claims: DraftClaim[];
}

export interface TodoTask {
  id: string;
  title: string;
  state: TaskState;
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

/** A place of the reference graph; collection and page (where it starts) open it in the viewer. */
export interface ReferencePlace {
  collection?: string | null;
  document: string;
  section?: string | null;
  page?: number | null;
}

export interface ReferenceFollowed {
  seq: number;
  task_id: string;
  from: ReferencePlace;
  mention: string;
  to: ReferencePlace;
  depth: number;
}

export interface Assessment {
  answerable: boolean;
  reason: string;
  corpus_covers: string[];
  coverage: number;
  max_similarity: number;
  model_verdict: string;
}

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
  clarifications: ClarificationRound[];
  plan: TaskSpec[] | null;
  todo: TodoTask[];
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

export type ResumeBody = ClarificationAnswer | { tasks: TaskEdit[] | null } | OutlineAnswer | Record<string, never>;
