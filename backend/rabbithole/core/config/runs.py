"""Settings of research runs and of report mode."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ResearchSettings(BaseModel):
    """The research run: clarify, plan, dig, validate, synthesize, attribute."""

    languages: list[str] = Field(
        ["de", "en"], min_length=2, description="Languages detected (ISO 639-1) for questions and documents."
    )
    max_clarify_rounds: int = Field(5, ge=1, le=20, description="Clarification rounds at most.")
    converge_coverage: float = Field(
        0.8, ge=0.0, le=1.0, description="Clarification converges at this coverage ..."
    )
    converge_dedup: float = Field(0.7, ge=0.0, le=1.0, description="... and this dedup ratio ...")
    converge_max_gaps: int = Field(2, ge=0, description="... and at most this many knowledge gaps.")
    clarify_k: int = Field(5, ge=1, le=50, description="Search hits per clarification query.")
    min_tasks: int = Field(3, ge=1, le=15, description="Tasks a proposed plan has at least.")
    max_tasks: int = Field(5, ge=1, le=15, description="Tasks a proposed plan has at most.")
    task_limit: int = Field(15, ge=1, le=15, description="Tasks an edited plan may have at most.")
    concurrency: int = Field(
        5, ge=1, le=32, description="Tasks dug (and a task's extraction calls made) in parallel."
    )
    k: int = Field(5, ge=1, le=100, description="Search hits per query and collection when digging.")
    queries_per_task: int = Field(3, ge=1, le=10, description="Search queries per task and language.")
    max_passages: int = Field(24, ge=1, le=500, description="Passages per task read by extraction at most.")
    min_passage_relevance: float = Field(
        0.2, ge=0.0, le=1.0, description="Reached passages below this similarity are not extracted."
    )
    extract_batch_tokens: int = Field(
        3000, ge=200, description="Passage tokens per extraction call (several passages per call)."
    )
    extract_retry_calls: int = Field(
        8,
        ge=0,
        le=100,
        description="Extra extraction calls per task (shared among its batches) for passages whose answer "
        "stayed invalid or was cut: asked again in smaller batches, halves down to one passage. Passages "
        "still unread are reported as such, never as holding nothing.",
    )
    gate_ahead: bool = Field(
        True,
        description="Judge the second hop's candidate references beside the first hop's (two gate calls at "
        "once, listed by a dry expansion that follows every first-hop reference) instead of after them, "
        "when concurrency is above 1.",
    )
    tier_primary: float = Field(0.6, ge=0.0, le=1.0, description="Tier score of primary evidence.")
    tier_secondary: float = Field(0.4, ge=0.0, le=1.0, description="Tier score of secondary evidence.")
    drift_primary: float = Field(
        0.1, ge=-1.0, le=1.0, description="Anchor similarity primary evidence needs."
    )
    drift_secondary: float = Field(0.15, ge=-1.0, le=1.0, description="... secondary evidence needs.")
    drift_tertiary: float = Field(0.2, ge=-1.0, le=1.0, description="... tertiary evidence needs.")
    drift_warn_share: float = Field(0.3, ge=0.0, le=1.0, description="Warn when validation drops more.")
    quality_threshold: float = Field(
        70.0, ge=0.0, le=100.0, description="Mean quality score below which one remediation pass runs."
    )
    support_threshold: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="Citations whose support score is lower are flagged weak (calibrated for the "
        "use-multilingual embedder; about 0.44 for e5-multilingual: docs/benchmarks.md, bench_support).",
    )
    assess_floor: float = Field(
        0.25, ge=-1.0, le=1.0, description="Best similarity below which the corpus holds nothing on it."
    )
    assess_clear: float = Field(
        0.5, ge=-1.0, le=1.0, description="Best similarity at or above which the corpus clearly covers it."
    )
    assess_bm25_floor: float = Field(
        4.0,
        ge=0.0,
        description="A passage a view in the documents' language (the model's translation, the glossary's "
        "terms) finds with at least this BM25 score is a candidate: while there is one, a best similarity "
        "below assess_floor does not decline the question (the model judges it).",
    )
    translation_views: bool = Field(
        True,
        description="A question in another language than the documents' is also searched in theirs: the "
        "model's translation of it and its corpus queries (kept only when the language detector finds them "
        "in the documents' language) and the glossary's German terms of an English question (false: the "
        "question and the model's queries as written, no translation call).",
    )
    pin_provisions: bool = Field(
        True,
        description="A provision the question or a task names with its law (§ 7 des Atomgesetzes, Anlage 4 "
        "StrlSchG) is resolved in the collections and its passages are read first in that task; the result "
        "lists each one, found or not (false: provisions are searched like any other words).",
    )
    max_running_runs: int = Field(
        2, ge=1, le=64, description="Runs the API server executes at once; the rest wait as queued, in order."
    )
    resume_on_start: bool = Field(
        True,
        description="At server start, resume runs a stopped process left running (false: mark them error, "
        "resumable with POST /api/runs/{id}/resume).",
    )
    run_lease_s: float = Field(
        30.0,
        ge=1.0,
        le=3600.0,
        description="Seconds a process's claim on a run lasts unless renewed (every third of it): servers "
        "and the CLI on one data directory never execute one run twice; the runs of a process that died are "
        "taken over once its claims expire (at once when it ran on this host). Longer than the longest stall "
        "of a busy server (a run of a process stalled for longer may be taken over while it still executes).",
    )


class ReportSettings(BaseModel):
    """Report mode: an approved outline, sections researched in parallel, graded and refined."""

    min_sections: int = Field(3, ge=1, le=12, description="Sections a proposed outline has at least.")
    max_sections: int = Field(6, ge=1, le=12, description="Sections a proposed outline has at most.")
    section_limit: int = Field(12, ge=1, le=20, description="Sections an edited outline may have at most.")
    max_outline_rounds: int = Field(
        3, ge=0, le=10, description="Outline re-plans with the user's feedback at most."
    )
    max_search_depth: int = Field(
        2, ge=0, le=5, description="Searches again with a failing grade's follow-up queries, per section."
    )
    refinement_rounds: int = Field(
        1, ge=0, le=5, description="Review rounds: the sections a reviewer names are re-researched."
    )
    context_tokens: int = Field(
        600,
        ge=0,
        description="Tokens of neighbouring chunks added around a section's search hits (small-to-large).",
    )
