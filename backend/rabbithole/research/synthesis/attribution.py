"""Attribution: the rendered report with one stable [n] numbering, the sources (document, page, section,
verified quote, offsets, reference chain), the support check of every cited sentence and the citation
statistics. Citations can only point at evidence the run retrieved: unknown ids are removed and counted."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from rabbithole.embeddings.base import FloatArray
from rabbithole.research.dig.extraction import unread_places
from rabbithole.research.evidence.citations import render_report, render_sources, same_source
from rabbithole.research.evidence.ocr_pages import OcrPages
from rabbithole.research.evidence.support import SupportChecker
from rabbithole.research.export.labels import labels as export_labels
from rabbithole.research.models import (
    CitationStats,
    ClaimView,
    Evidence,
    EvidenceView,
    QualityScores,
    ReportChecks,
    ResearchResult,
    Source,
    Support,
    TaskOverview,
    TextGuards,
)
from rabbithole.research.synthesis.checks import with_support
from rabbithole.research.synthesis.consistency import cited_text
from rabbithole.research.synthesis.prompts import labels


def _ocr_confidence(ocr: OcrPages, evidence: Evidence) -> float | None:
    if evidence.kind != "document":
        return None
    return ocr.confidence(evidence.collection, evidence.document, evidence.page)


def _overall(supports: Sequence[Support]) -> Support | None:
    """A source's support: its weakest citation (flagged if any citation of it is)."""
    if not supports:
        return None
    weakest = min(supports, key=lambda s: s.score)
    return weakest.model_copy(update={"flagged": any(s.flagged for s in supports)})


def build_result(
    *,
    run_id: str,
    state: Any,
    evidence: Sequence[Evidence],
    embed: Callable[[Sequence[str]], FloatArray],
    support_threshold: float,
    unmarked: Collection[str] = (),
    ocr: OcrPages | None = None,
) -> ResearchResult:
    """The result; a claim that cites nothing after unknown ids are removed is kept, flagged ``uncited``
    and marked in the report (``unmarked``: texts never marked, such as a "no evidence" statement)."""
    language: str = state["language"]
    names = labels(language)
    ocr = ocr or OcrPages()
    by_id = {e.id: e for e in evidence}
    notes: list[str] = list(dict.fromkeys(state.get("notes", [])))
    sections = state.get("sections", [])
    rendered = render_report(
        sections,
        set(by_id),
        title=state.get("title"),
        uncited_mark=names["uncited"],
        unmarked=unmarked,
        same=same_source(evidence),  # the same quote at the same place, found twice: one [n]
    )
    notes.extend(rendered.warnings)
    numbers = {e.id: n for e in evidence if (n := rendered.number(e.id)) is not None}
    checker = SupportChecker(embed, threshold=support_threshold)
    cited = [c for c in rendered.claims if c.evidence_ids]
    supports = (
        checker.check([(c.text, [cited_text(by_id[i]) for i in c.evidence_ids]) for c in cited])
        if cited
        else []
    )
    per_source: dict[int, list[Support]] = {}
    claims: list[ClaimView] = []
    support_of = {id(c): s for c, s in zip(cited, supports, strict=True)}
    flagged_citations = 0
    for claim in rendered.claims:
        support = support_of.get(id(claim))
        flagged: list[int] = []
        for eid in claim.evidence_ids:
            if support is not None:
                per_source.setdefault(numbers[eid], []).append(support)
                if support.flagged:
                    flagged.append(numbers[eid])
        flagged_citations += len(flagged)
        claims.append(
            ClaimView(
                section=claim.heading,
                text=claim.text,
                citations=claim.numbers,  # as the Markdown shows them: one per source, in order
                flagged=sorted(flagged),
                uncited=not claim.evidence_ids and claim.text not in unmarked,
            )
        )
    sources = [
        Source(
            n=numbers[eid],
            evidence_id=eid,
            collection=by_id[eid].collection,
            document=by_id[eid].document,
            page=by_id[eid].page,
            section=by_id[eid].section,
            quote=by_id[eid].quote,
            start=by_id[eid].start,
            end=by_id[eid].end,
            chain=by_id[eid].chain,
            support=_overall(per_source.get(numbers[eid], [])),
            kind=by_id[eid].kind,
            url=by_id[eid].url,
            title=by_id[eid].title,
            fetched_at=by_id[eid].fetched_at,
            ocr_confidence=(confidence := _ocr_confidence(ocr, by_id[eid])),
            ocr_low_confidence=ocr.is_low(confidence),
        )
        for eid in rendered.order
    ]
    markdown = rendered.markdown
    if sources:
        words = export_labels(language)
        markdown += "\n\n" + render_sources(
            sources,
            heading=names["sources"],
            page_label=names["page"],
            weak_label=words["weak"],
            chain_label=words["chain"],
            ocr_low_label=words["ocr_low"],
        )
    elif not sections:
        unread = [p for t in state["task_results"] for p in t.passages_unread]
        body = (
            names["unread"].format(n=len(unread), places=unread_places(unread, names["page"]))
            if unread
            else f"{names['no_evidence']}."
        )
        markdown = f"# {state.get('title') or state['question']}\n\n{body}"
    if flagged_citations:
        notes.append(
            f"{flagged_citations} citation(s) are weakly supported by the evidence they cite (flagged)"
        )
    checks: ReportChecks | None = state.get("checks")
    quality: QualityScores | None = state.get("quality")
    if checks is not None:
        weak = [(c.section, c.text) for c in claims if c.flagged]
        checks = with_support(
            checks, weak, flagged_citations, sum(len(c.evidence_ids) for c in rendered.claims)
        )
        if quality is not None:
            quality = quality.model_copy(update={"passed": quality.passed and checks.passed})
    guards: TextGuards = state.get("text_guards") or TextGuards()
    guards = guards.model_copy(update={"uncited_claims": sum(c.uncited for c in claims)})
    stats = CitationStats(
        sentences=len(rendered.claims),
        cited_sentences=len(cited),
        citations=sum(len(c.evidence_ids) for c in rendered.claims),
        flagged_citations=flagged_citations,
        removed_citations=rendered.removed,
    )
    tasks = [
        TaskOverview(
            id=t.task_id,
            title=t.title,
            state=t.state,
            evidence=len(t.evidence),
            passages=t.passages,
            references_followed=t.references_followed,
            findings=t.summary.findings,
            gaps=t.summary.gaps,
            error=t.error,
        )
        for t in state["task_results"]
    ]
    return ResearchResult(
        run_id=run_id,
        question=state["question"],
        language=language,
        status="done",
        report_markdown=markdown,
        sources=sources,
        claims=claims,
        tasks=tasks,
        quality=quality,
        checks=checks,
        evidence=[
            EvidenceView(
                id=e.id,
                task_id=e.task_id,
                collection=e.collection,
                document=e.document,
                page=e.page,
                section=e.section,
                quote=e.quote,
                start=e.start,
                end=e.end,
                fact=e.fact,
                source=numbers.get(e.id),
                pinned=e.pinned,
            )
            for e in evidence
        ],
        assembled_sections=state.get("assembled", []),
        warnings=notes,
        dropped=state.get("dropped", []),
        citation_stats=stats,
        packing=state.get("packing"),
        text_guards=guards,
    )
