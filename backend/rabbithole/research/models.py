"""The typed data of a research run: what the graphs keep in their state and checkpoint, and the one output
shape (``ResearchResult``) the CLI's ``--json`` and the API share.

Evidence is never typed by a model: a quote is cut from the stored page text by offsets (``start``/``end``
on its page), and a citation points at an evidence id the run retrieved.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["primary", "secondary", "tertiary"]
RunMode = Literal["interactive", "quick", "report"]
RunStatus = Literal["queued", "running", "waiting_for_input", "done", "error", "cancelled"]
Phase = Literal[
    "clarify",
    "assess",
    "plan",
    "dig",
    "validate",
    "synthesize",
    "attribute",
    "outline",
    "sections",
    "review",
    "compile",
    "done",
]
TaskState = Literal["pending", "running", "done", "error"]
#: Where evidence comes from: a page of a document in a collection, or a web page (optional web research).
SourceKind = Literal["document", "web"]


class ChainStep(BaseModel):
    """One passage of a reference chain; ``mention`` is the reference in it that led to the next step."""

    chunk_id: str
    document: str
    page: int
    section: str | None = None
    mention: str | None = None
    query: str | None = Field(None, description="The search that found this passage (the seed, first step).")


class Passage(BaseModel):
    """A passage the run retrieved (a search hit, or reached through references)."""

    chunk_id: str
    collection: str
    document: str
    page: int
    page_end: int
    section: str | None = None
    heading: str = ""
    start: int = Field(description="Offset of the passage in the document text.")
    end: int
    text: str
    depth: int = 0
    relevance: float | None = Field(None, description="Cosine similarity to the query that found it.")
    search_score: float | None = Field(None, description="Fused search score (search hits only).")
    query: str | None = Field(None, description="The search query that found it (search hits only).")
    chain: list[ChainStep] = Field(default_factory=list, description="Seed first, this passage last.")
    pinned: bool = Field(False, description="Of a provision the question or a task names (read first).")


class Evidence(BaseModel):
    """A verified finding: the model's statement of a fact and the sentences it chose, cut from the page."""

    id: str = Field(description='Stable within the run: task, extraction batch, position ("t2-b1-e5").')
    task_id: str
    chunk_id: str
    collection: str
    document: str
    page: int
    section: str | None = None
    heading: str = ""
    quote: str = Field(description="Verbatim from the page text: page_text[start:end].")
    start: int = Field(description="Character offset of the quote on its page.")
    end: int
    fact: str = Field(description="The model's statement of the finding (never shown as a quote).")
    answers: bool = Field(True, description="False: related, but does not answer the task.")
    depth: int = 0
    relevance: float = 0.0
    search_score: float | None = None
    entity_match: float = 0.0
    tier: Tier = "secondary"
    tier_score: float = 0.0
    chain: list[ChainStep] = Field(default_factory=list)
    anchor_similarity: float | None = Field(
        None,
        description="Similarity of heading and quote to the query anchor (the embedder's), measured while "
        "the task is dug; synthesis drops evidence below its tier's threshold.",
    )
    kind: SourceKind = Field(
        "document",
        description='"web": a passage of a fetched web page; quote/start/end index its extracted text.',
    )
    url: str | None = Field(None, description="The web page's address (web evidence only).")
    title: str | None = Field(None, description="The web page's title (web evidence only).")
    fetched_at: datetime | None = Field(None, description="When the web page was fetched (web evidence).")
    pinned: bool = Field(
        False,
        description="From a provision the question or a task names: drift validation keeps it whatever its "
        "similarity to the anchor.",
    )


class QueryAnchor(BaseModel):
    """What the run is about, fixed once clarification ends; drift is measured against it."""

    question: str
    language: str
    key_entities: list[str] = Field(default_factory=list)
    scope: str = ""
    refinements: list[str] = Field(default_factory=list)


class TaskSpec(BaseModel):
    """A task of the plan, as the user approves it."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    title: str
    description: str = ""
    queries: list[str] = Field(default_factory=list, description="In the user's language.")
    corpus_queries: list[str] = Field(
        default_factory=list, description="In the language of the collection's documents."
    )


class TaskSummary(BaseModel):
    findings: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list, description="Related but non-answering findings.")


class UnreadPassage(BaseModel):
    """A retrieved passage the model could not read: its extraction answers stayed invalid or were cut,
    also when it was asked again in smaller batches."""

    chunk_id: str
    collection: str
    document: str
    page: int
    section: str | None = None


class TaskResult(BaseModel):
    """What digging one task produced."""

    task_id: str
    title: str
    state: TaskState = "done"
    queries: list[str] = Field(default_factory=list)
    passages: int = 0
    retrieved: list[str] = Field(default_factory=list, description="Ids of every passage retrieved.")
    references_followed: int = 0
    references_skipped: int = 0
    evidence: list[Evidence] = Field(default_factory=list)
    summary: TaskSummary = Field(default_factory=TaskSummary)
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None
    extraction_failures: int = Field(
        0,
        description="Extraction calls whose answer stayed invalid or came back cut with findings missing "
        "(the smaller batches asked again included).",
    )
    passages_unread: list[UnreadPassage] = Field(
        default_factory=list,
        description="Retrieved passages the model could not read (not: passages without evidence).",
    )
    facts_retied: int = Field(
        0, description="Facts quoted from other sentences than the model chose: those that hold its numbers."
    )
    facts_dropped: int = Field(
        0, description="Facts dropped: their numbers or provisions are in none of the passages read."
    )
    passages_shared: int = Field(
        0,
        description="Passages not sent to the model again: another task of the run read them, and their "
        "findings became this task's evidence (each passage read once per run).",
    )


class RetrievedPassage(BaseModel):
    """A passage shown to the user in clarification (what the corpus returned); where it lies, so the
    app opens its page with it highlighted."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    chunk_id: str
    collection: str | None = Field(None, description="None in runs checkpointed before it was recorded.")
    document: str
    page: int
    page_end: int | None = None
    section: str | None = None
    score: float
    snippet: str
    start: int | None = Field(None, description="Offset of the passage in the document text.")
    end: int | None = None


class ClarificationRound(BaseModel):
    """One round of clarification: the interrupt's typed payload."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    round: int
    questions: list[str]
    understanding: str
    coverage: float = Field(ge=0.0, le=1.0)
    gaps: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    passages: list[RetrievedPassage] = Field(default_factory=list)
    dedup_ratio: float = Field(ge=0.0, le=1.0)
    answer: str | None = Field(None, description="The user's answer; '/end' ends clarification.")


class ClarificationInterrupt(ClarificationRound):
    """The payload of the clarification interrupt: the round, and why the last answer was refused."""

    kind: Literal["clarification"] = "clarification"
    error: str | None = None


class PlanProposal(BaseModel):
    """The payload of the plan interrupt: the proposed tasks, the most an edited plan may have, and why the
    last edit was refused."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    kind: Literal["plan"] = "plan"
    question: str
    tasks: list[TaskSpec]
    limit: int
    error: str | None = None


class Assessment(BaseModel):
    answerable: bool
    reason: str
    corpus_covers: list[str] = Field(default_factory=list, description="What the corpus does cover.")
    max_similarity: float = 0.0
    coverage: float = 0.0
    model_verdict: Literal["answerable", "unanswerable", "live_data", "invalid"] = "answerable"


class Dropped(BaseModel):
    """Evidence validation removed (drift from the query anchor)."""

    evidence_id: str
    document: str
    page: int
    section: str | None = None
    tier: Tier
    score: float
    threshold: float
    reason: str


class QualityScores(BaseModel):
    factual_accuracy: int = Field(ge=0, le=100)
    semantic_validity: int = Field(ge=0, le=100)
    structure: int = Field(ge=0, le=100)
    citation_correctness: int = Field(ge=0, le=100)
    query_relevance: int = Field(ge=0, le=100)
    overall: float = 0.0
    issues: list[str] = Field(default_factory=list)
    remediated: bool = False
    passed: bool = True


class Support(BaseModel):
    score: float = Field(description="Combined token overlap and embedding similarity, 0..1.")
    overlap: float
    similarity: float
    flagged: bool = Field(description="Contradicted, or weakly supported (score below the threshold).")
    contradiction: bool = Field(
        False,
        description="A number, date, amount, percentage or provision of the claim is in none of the quotes "
        "it cites (nor their sections): the evidence contradicts it.",
    )
    missing: list[str] = Field(
        default_factory=list, description='Those tokens of the claim, as written ("20 mSv", "§ 9 AtG").'
    )
    reason: Literal["contradiction", "weak"] | None = Field(
        None, description="Why it is flagged: contradiction first, else weak; None when not flagged."
    )


class Source(BaseModel):
    """One numbered source of the report ([n])."""

    n: int
    evidence_id: str
    collection: str
    document: str
    page: int
    section: str | None = None
    quote: str
    start: int
    end: int
    chain: list[ChainStep] = Field(default_factory=list)
    support: Support | None = None
    kind: SourceKind = Field(
        "document",
        description='"web": a passage of a fetched web page; quote/start/end index its extracted text.',
    )
    url: str | None = Field(None, description="The web page's address (web sources only).")
    title: str | None = Field(None, description="The web page's title (web sources only).")
    fetched_at: datetime | None = Field(None, description="When the web page was fetched (web sources).")
    ocr_confidence: float | None = Field(
        None,
        description="The source's page was read by OCR: its mean word confidence in percent (None: the"
        " text layer). The quote is verbatim to the OCR text.",
    )
    ocr_low_confidence: bool = Field(
        False, description="OCR read the page with low confidence (ingestion.ocr.low_confidence): check it."
    )


class CitationStats(BaseModel):
    sentences: int = 0
    cited_sentences: int = 0
    citations: int = 0
    flagged_citations: int = 0
    removed_citations: int = 0


class PackingReport(BaseModel):
    """What packing the synthesis prompt into the context window kept and cut."""

    budget_tokens: int
    used_tokens: int
    kept: int
    cut: list[str] = Field(default_factory=list, description="Ids/labels of what did not fit, in order.")


class TaskOverview(BaseModel):
    id: str
    title: str
    state: TaskState
    evidence: int = 0
    passages: int = 0
    references_followed: int = 0
    findings: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    error: str | None = None


class TextGuards(BaseModel):
    """What the deterministic guards (``research.guards``) did to the model's report text: repeated claims
    dropped (their evidence ids merged into the kept one), sentences repeated inside one claim collapsed,
    placeholder or duplicate headings replaced (``headings_numbered`` of them by a numbered "Part k" as the
    last resort), empty sections dropped, claims citing nothing (kept, marked ``uncited``), and whether a
    placeholder title was replaced. Report mode: over all its sections together."""

    repeated_claims_dropped: int = 0
    repeated_sentences_collapsed: int = 0
    headings_replaced: int = 0
    headings_numbered: int = 0
    sections_dropped: int = 0
    uncited_claims: int = 0
    title_replaced: bool = False
    placeholder_claims_dropped: int = Field(
        0, description="Claims whose text was a placeholder or a schema field's description."
    )


ProblemKind = Literal[
    "no_answer",
    "empty",
    "repeated",
    "uncited",
    "wrong_language",
    "weak_support",
    "contradiction",
    "failed_grade",
]


class QualityProblem(BaseModel):
    """One problem the measured checks found, pointing at its section (and sentence, where it has one)."""

    kind: ProblemKind
    section: str | None = None
    sentence: str | None = None
    detail: str


class ClaimCorrection(BaseModel):
    """A report sentence that stated a number, date, amount or provision its cited quotes do not: replaced
    by a cited finding's statement, or removed."""

    section: str
    sentence: str = Field(description="The sentence as the model wrote it.")
    missing: list[str] = Field(description="What it stated that its evidence does not, as written.")
    action: Literal["rewritten", "removed"]
    replacement: str | None = Field(None, description="The finding's statement that replaced it.")


class ReportChecks(BaseModel):
    """The measured, deterministic checks of the report (``research.synthesis.checks``): what the model
    wrote for its sections (before the guards) and what the report rests on. The model's own grades
    (``QualityScores``) are one more input to the verdict."""

    sentences_written: int = Field(0, description="Sentences the model wrote for the sections shown.")
    repeated_share: float = Field(0.0, description="Share of them dropped as repeats.")
    placeholders: int = Field(0, description="Sentences that were placeholders or field descriptions.")
    cited_share: float = Field(1.0, description="Share of the report's sentences that cite evidence.")
    tasks_with_evidence: int = 0
    sections_written: int = Field(0, description="Sections the model wrote that passed the checks.")
    sections_assembled: int = Field(0, description="Sections assembled from the verified findings.")
    language_ok: bool = True
    flagged_share: float | None = Field(
        None, description="Share of citations the support check flagged (after attribution)."
    )
    contradictions: int = Field(
        0, description="Sentences that contradicted their evidence (rewritten or removed: ``corrections``)."
    )
    corrections: list[ClaimCorrection] = Field(default_factory=list)
    problems: list[QualityProblem] = Field(default_factory=list)
    passed: bool = True


class AssembledSection(BaseModel):
    """A section assembled from the run's verified findings (each a cited fact from extraction), without
    the model's prose, and why."""

    heading: str
    task_id: str
    reason: str
    note: str = Field("", description="The label shown under its heading, in the report's language.")


class ClaimView(BaseModel):
    """A sentence of the report and its citations ([n]); ``flagged``: the weakly supported ones."""

    section: str
    text: str
    citations: list[int] = Field(default_factory=list)
    flagged: list[int] = Field(default_factory=list)
    uncited: bool = Field(False, description="The sentence cites no evidence (kept, and marked as such).")


class SectionGrade(BaseModel):
    """A report section's grade: does the draft cover the section; what is missing; what to search next."""

    passed: bool
    missing: list[str] = Field(default_factory=list)
    follow_up_queries: list[str] = Field(default_factory=list)


class ReportSectionView(BaseModel):
    """A section of a report (report mode): its Markdown with the report's global [n] numbering."""

    id: str
    title: str
    research: bool = Field(description="Researched in the collections (false: written from the others).")
    markdown: str
    grade: SectionGrade | None = Field(None, description="The last grade (research sections).")
    rounds: int = Field(0, description="Search rounds (the first and each follow-up), over all passes.")
    refined: int = Field(0, description="Refinement passes that rewrote this section.")
    evidence: int = 0


class EvidenceView(BaseModel):
    """One piece of the run's verified evidence, cited in the report or not."""

    id: str
    task_id: str
    collection: str
    document: str
    page: int
    section: str | None = None
    quote: str = Field(description="Verbatim from the page text: page_text[start:end].")
    start: int
    end: int
    fact: str = Field(description="The model's statement of the finding (never shown as a quote).")
    source: int | None = Field(None, description="Its number [n] in the report; null: not cited.")
    pinned: bool = Field(False, description="From a provision the question or a task names.")


class PinnedProvision(BaseModel):
    """A provision the question or an approved task names ("§ 7 des Atomgesetzes", "Anlage 4 StrlSchG"):
    resolved by the reference engine in the run's collections, its passages extracted first in its task
    (``research/dig/pinned.py``)."""

    provision: str = Field(
        description='As named: "§ 7 des Atomgesetzes", "§ 78 StrlSchG", "Anlage 4 StrlSchG".'
    )
    named_in: Literal["question", "task"] = Field(description="Named in the question, or only in a task.")
    task_id: str = Field(description="The task that extracted it first (the first task naming it).")
    found: bool = Field(False, description="Resolved to a section of a document in the collections.")
    collection: str | None = None
    document: str | None = None
    section: str | None = None
    reason: str | None = Field(
        None, description="Why it was not found: unknown_document, section_not_found, ambiguous_document, ..."
    )
    chunk_ids: list[str] = Field(default_factory=list, description="Its passages, extracted first.")
    evidence_ids: list[str] = Field(
        default_factory=list, description="The run's verified evidence from it (ids in ``evidence``)."
    )
    answers: bool | None = Field(
        None,
        description="Whether extraction found in it something that answers the question (null: not found, "
        "or the model could not read it).",
    )


class TokenUse(BaseModel):
    """Tokens of the model calls of one kind: read (the prompts) and written (the answers)."""

    prompt: int = 0
    output: int = 0


def token_use(flat: dict[str, int]) -> dict[str, TokenUse]:
    """``{"<kind>.prompt": n, "<kind>.output": m}`` (the graphs' ``llm_tokens``) by kind, with a
    ``total``."""
    counts: dict[str, dict[str, int]] = {}
    for key, n in sorted(flat.items()):
        kind, _, part = key.rpartition(".")
        if kind and part in ("prompt", "output"):
            counts.setdefault(kind, {"prompt": 0, "output": 0})[part] += n
    out = {kind: TokenUse(**c) for kind, c in counts.items()}
    if out:
        out["total"] = TokenUse(
            prompt=sum(u.prompt for u in out.values()), output=sum(u.output for u in out.values())
        )
    return out


class ResearchResult(BaseModel):
    """The result of a research run: `rabbithole research --json` and the API's report."""

    run_id: str
    question: str
    language: str
    status: RunStatus
    answerable: bool = True
    report_markdown: str = ""
    sources: list[Source] = Field(default_factory=list)
    claims: list[ClaimView] = Field(default_factory=list)
    tasks: list[TaskOverview] = Field(default_factory=list)
    quality: QualityScores | None = None
    warnings: list[str] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    llm_calls: dict[str, int] = Field(default_factory=dict)
    llm_tokens: dict[str, TokenUse] = Field(
        default_factory=dict,
        description="Prompt and output tokens by kind of call, and their total, as the server counted them.",
    )
    citation_stats: CitationStats = Field(default_factory=CitationStats)
    packing: PackingReport | None = None
    text_guards: TextGuards = Field(
        default_factory=TextGuards, description="What the guards did to the model's text."
    )
    checks: ReportChecks | None = Field(None, description="The measured checks of the report.")
    evidence: list[EvidenceView] = Field(
        default_factory=list,
        description="All verified evidence the report was written from (after validation), cited or not.",
    )
    pinned: list[PinnedProvision] = Field(
        default_factory=list,
        description="Provisions the question or a task names, pinned: found or not, and their evidence.",
    )
    assembled_sections: list[AssembledSection] = Field(
        default_factory=list,
        description="Sections assembled from the verified findings because the model's text was unusable.",
    )
    retrieved_chunks: list[str] = Field(
        default_factory=list, description="Ids of every passage the run retrieved (citations point inside)."
    )
    error: str | None = None
    sections: list[ReportSectionView] | None = Field(
        None, description="Report mode: the sections in order (null for a research run)."
    )


class RunSummary(BaseModel):
    """A run in a list: `rabbithole runs --json` and the API's run list."""

    run_id: str
    status: RunStatus
    phase: str
    mode: RunMode
    question: str
    collections: list[str]
    language: str
    created_at: datetime
    updated_at: datetime
    error: str | None = None
