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
  document: string;
  page: number;
  section?: string | null;
  score: number;
  snippet: string;
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

/** What clarification does while the user waits: the model writes the round's searches (planning), the
 * corpus is searched query by query (searching), the model reads what was found and writes the next questions
 * (analyzing), clarification is over and the model fixes what the research is about (anchoring). */
export type ClarifyStep = "planning" | "searching" | "analyzing" | "anchoring";

/** A `clarification_progress` event (research/clarify/progress.py ClarificationProgress). */
export interface ClarificationProgressEvent {
  type: "clarification_progress";
  /** The round being prepared (the last round when anchoring). */
  round: number;
  step: ClarifyStep;
  /** The round's search queries (0 while they are written). */
  queries: number;
  /** Queries searched so far. */
  searched: number;
  /** Searching: distinct passages found so far in the round; analyzing: the passages the model reads. */
  passages: number;
}

/** A `clarification_answer` event (research/clarify/progress.py ClarificationAnswered): the user's answer to
 * a round; `ended`: it was "/end" (enough, start the research). */
export interface ClarificationAnswerEvent {
  type: "clarification_answer";
  round: number;
  answer: string;
  ended: boolean;
}

/** What clarification is doing now, folded from its latest `clarification_progress` event. */
export type ClarifyActivity = Omit<ClarificationProgressEvent, "type">;

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

/** Where a checked evidence id of the streamed draft points (`draft_text` citations): an id the run did not
 * retrieve never has one. */
export interface DraftCitation {
  evidence_id: string;
  collection: string;
  document: string;
  page: number;
  section?: string | null;
  quote: string;
  start: number;
  end: number;
  kind: "document" | "web";
  url?: string | null;
}

/** A sentence of a section as the model writes it: `complete` false while it is still being written. */
export interface DraftTextClaim extends DraftClaim {
  complete: boolean;
}

/** The `draft_text` event: a section's sentences so far, and the checked ids first cited since its previous
 * event (backend research/synthesis/preview.py DraftTextEvent). */
export interface DraftTextEvent {
  type: "draft_text";
  index: number;
  heading: string;
  task_id: string;
  attempt: number;
  claims: DraftTextClaim[];
  citations: Record<string, DraftCitation>;
}

/** A section being written: its text so far (the latest `draft_text` of its index). */
export interface DraftStream {
  index: number;
  heading: string;
  attempt: number;
  claims: DraftTextClaim[];
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

export interface ReferenceFollowed {
  seq: number;
  task_id: string;
  from: { document: string; section?: string | null };
  mention: string;
  to: { document: string; section?: string | null };
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
  clarifications: ClarificationRound[];
  /** What clarification is doing while the user waits; null while it waits for an answer or is over. */
  clarifyActivity: ClarifyActivity | null;
  plan: TaskSpec[] | null;
  todo: TodoTask[];
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

export type ResumeBody = ClarificationAnswer | { tasks: TaskEdit[] | null } | OutlineAnswer | Record<string, never>;
