"""The result of a run as a Word document (python-docx), for people who hand reports on.

One exporter for both modes: a research run's ``ResearchResult`` renders its claims under their section
headings with their ``[n]`` citation numbers; a report run's result (a ``ResearchResult`` with ``sections``,
each with a ``title`` and its ``markdown``) renders a contents list and its sections in order. Both end with
the numbered sources (document, page, section, the verified quote, the reference chain; web sources marked
as such with their address), the run's warnings and the quality scores. Every quote comes from the result's
sources, which hold the verbatim text cut from the page by offsets; nothing here writes a quote of its own.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from docx import Document as new_document
from docx.document import Document
from docx.text.paragraph import Paragraph

from rabbithole.research.export import DOCX_MEDIA_TYPE
from rabbithole.research.export.labels import labels
from rabbithole.research.export.markdown_blocks import Block, Span, inline_spans, parse_blocks
from rabbithole.research.models import ClaimView, QualityScores, ReportChecks, ResearchResult, Source

__all__ = ["DOCX_MEDIA_TYPE", "docx_bytes", "render_docx", "write_docx"]

_FINAL_PUNCT = re.compile(r"[.!?;:…]+$")
_CRITERIA = ("factual_accuracy", "semantic_validity", "structure", "citation_correctness", "query_relevance")


def render_docx(result: ResearchResult) -> Document:
    """The document of ``result`` (research or report run). Characters XML cannot hold (control
    characters a PDF's text layer may carry) are left out; nothing else of the text changes."""
    result = _xml_safe(result)
    words = labels(result.language)
    doc = new_document()
    title = _title(result)
    doc.core_properties.title = title
    doc.core_properties.language = result.language
    doc.add_heading(title, level=0)
    if title != result.question:
        _labelled(doc, words["question"], result.question)
    sections = _sections(result)
    if sections:
        _add_report_sections(doc, sections, words)
    elif result.claims:
        notes = {a.heading: a.note for a in result.assembled_sections}
        _add_claims(doc, result.claims, words["uncited"], notes)
    else:
        _add_markdown(doc, result.report_markdown, skip_title=title)
    if result.sources:
        _add_sources(doc, result.sources, words)
    if result.warnings:
        doc.add_heading(words["warnings"], level=1)
        for warning in result.warnings:
            doc.add_paragraph(warning, style="List Bullet")
    if result.quality is not None:
        _add_quality(doc, result.quality, words)
    if result.checks is not None:
        _add_checks(doc, result.checks, words)
    return doc


def docx_bytes(result: ResearchResult) -> bytes:
    """The .docx file of ``result``, as bytes."""
    buffer = io.BytesIO()
    render_docx(result).save(buffer)
    return buffer.getvalue()


def write_docx(result: ResearchResult, path: Path) -> Path:
    """Write the .docx file of ``result`` to ``path`` (its folder must exist)."""
    path.write_bytes(docx_bytes(result))
    return path


# -- the report body ------------------------------------------------------------------------------

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_safe(result: ResearchResult) -> ResearchResult:
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return _NOT_XML.sub("", value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return type(result).model_validate(clean(result.model_dump()))


def _title(result: ResearchResult) -> str:
    for name in ("title", "topic"):
        value = getattr(result, name, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return result.question.strip() or "Report"


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _sections(result: ResearchResult) -> list[tuple[str, str]]:
    """(title, markdown) of each section of a report run's result; empty for a research run."""
    sections = getattr(result, "sections", None) or []
    out = []
    for section in sections:
        title = str(_field(section, "title") or "").strip()
        markdown = str(_field(section, "markdown") or "")
        if title or markdown.strip():
            out.append((title, markdown))
    return out


def _add_report_sections(doc: Document, sections: Sequence[tuple[str, str]], words: dict[str, str]) -> None:
    doc.add_heading(words["contents"], level=1)
    for title, _ in sections:
        if title:
            doc.add_paragraph(title, style="List Number")
    for title, markdown in sections:
        if title:
            doc.add_heading(title, level=1)
        blocks = parse_blocks(markdown)
        if blocks and blocks[0].kind == "heading" and _same(blocks[0].text, title):
            blocks = blocks[1:]  # the section's own heading, already written
        _add_blocks(doc, blocks, min_level=2)


def _add_claims(doc: Document, claims: Iterable[ClaimView], uncited: str, notes: Mapping[str, str]) -> None:
    """The claims under their section headings, one paragraph per section, each claim with its [n] (a
    claim citing nothing: ``[uncited]``); a section assembled from the findings with its label
    (``notes``, by heading) in italics first."""
    grouped: dict[str, list[ClaimView]] = {}
    for claim in claims:
        grouped.setdefault(claim.section, []).append(claim)
    for heading, items in grouped.items():
        if heading.strip():
            doc.add_heading(heading.strip(), level=1)
        if notes.get(heading):
            doc.add_paragraph().add_run(notes[heading]).italic = True
        paragraph = doc.add_paragraph()
        for i, claim in enumerate(items):
            _add_claim(paragraph, claim, uncited, first=i == 0)


def _add_claim(paragraph: Paragraph, claim: ClaimView, uncited: str, *, first: bool) -> None:
    text = claim.text.strip()
    markers = "".join(f"[{n}]" for n in claim.citations) or (f"[{uncited}]" if claim.uncited else "")
    final = _FINAL_PUNCT.search(text) if markers else None
    body, punct = (text[: final.start()].rstrip(), final.group()) if final else (text, "")
    _add_spans(paragraph, inline_spans(("" if first else " ") + body))
    if markers:
        paragraph.add_run(" " + markers)
    if punct:
        paragraph.add_run(punct)


def _add_markdown(doc: Document, markdown: str, *, skip_title: str) -> None:
    blocks = parse_blocks(markdown)
    if blocks and blocks[0].kind == "heading" and _same(blocks[0].text, skip_title):
        blocks = blocks[1:]
    _add_blocks(doc, blocks, min_level=1)


def _add_blocks(doc: Document, blocks: Iterable[Block], *, min_level: int) -> None:
    styles = {"bullet": "List Bullet", "number": "List Number", "quote": "Quote"}
    for block in blocks:
        if block.kind == "heading":
            doc.add_heading(block.text, level=min(9, max(min_level, block.level)))
            continue
        paragraph = doc.add_paragraph(style=styles.get(block.kind))
        _add_spans(paragraph, block.spans)


def _add_spans(paragraph: Paragraph, spans: Iterable[Span]) -> None:
    for span in spans:
        run = paragraph.add_run(span.text)
        run.bold = span.bold or None
        run.italic = span.italic or None


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _labelled(doc: Document, label: str, text: str) -> None:
    paragraph = doc.add_paragraph()
    paragraph.add_run(f"{label}: ").bold = True
    paragraph.add_run(text)


# -- sources, warnings, quality -----------------------------------------------------------------


def _add_sources(doc: Document, sources: Iterable[Source], words: dict[str, str]) -> None:
    doc.add_heading(words["sources"], level=1)
    for source in sorted(sources, key=lambda s: s.n):
        entry = doc.add_paragraph()
        entry.add_run(f"[{source.n}] ").bold = True
        entry.add_run(", ".join(_location(source, words)))
        if source.support is not None and source.support.flagged:
            entry.add_run(f" ({words['weak']})").italic = True
        quote = " ".join(source.quote.split())
        if quote:
            doc.add_paragraph(f"{words['open_quote']}{quote}{words['close_quote']}", style="Quote")
        if len(source.chain) > 1:
            steps = " → ".join(_chain_step(s.document, s.page, s.mention, words) for s in source.chain)
            doc.add_paragraph().add_run(f"{words['chain']}: {steps}").italic = True


def _location(source: Source, words: dict[str, str]) -> list[str]:
    if source.kind == "web":
        parts = [p for p in (source.title or source.document, source.url) if p]
        marker = words["web"]
        if source.fetched_at is not None:
            marker += f", {words['fetched']} {source.fetched_at.strftime('%Y-%m-%d %H:%M')} UTC"
        return [*parts, f"({marker})"]
    parts = [source.document, f"{words['page']} {source.page}"]
    if source.section:
        parts.append(source.section)
    return parts


def _chain_step(document: str, page: int, mention: str | None, words: dict[str, str]) -> str:
    step = f"{document} {words['page']} {page}"
    return f"{step} ({mention})" if mention else step


def _add_checks(doc: Document, checks: ReportChecks, words: dict[str, str]) -> None:
    """The measured checks: the verdict, each problem with its section and sentence, and the sentences that
    contradicted their evidence (what the model wrote, what its evidence did not state, what was done)."""
    doc.add_heading(words["checks"], level=1)
    doc.add_paragraph(words["checks_passed"] if checks.passed else words["checks_failed"])
    for problem in checks.problems:
        where = " – ".join(p for p in (problem.section, problem.sentence) if p)
        doc.add_paragraph(f"{problem.detail}{f' ({where})' if where else ''}", style="List Bullet")
    if checks.corrections:
        doc.add_paragraph().add_run(words["corrections"]).bold = True
        for c in checks.corrections:
            done = words[c.action] + (f": {c.replacement}" if c.replacement else "")
            quoted = f"{words['open_quote']}{c.sentence}{words['close_quote']}"
            text = f"{c.section}: {quoted} ({', '.join(c.missing)} {words['not_in_evidence']}); {done}"
            doc.add_paragraph(text, style="List Bullet")


def _add_quality(doc: Document, quality: QualityScores, words: dict[str, str]) -> None:
    doc.add_heading(words["quality"], level=1)
    table = doc.add_table(rows=1, cols=2)
    table.style = "Table Grid"
    header = table.rows[0].cells
    header[0].text, header[1].text = words["criterion"], words["score"]
    for name in _CRITERIA:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = words[name], str(getattr(quality, name))
    cells = table.add_row().cells
    cells[0].text, cells[1].text = words["overall"], f"{quality.overall:.1f}"
    verdict = words["passed"] if quality.passed else words["failed"]
    if quality.remediated:
        verdict += f", {words['remediated']}"
    doc.add_paragraph(verdict)
    if quality.issues:
        doc.add_paragraph().add_run(words["issues"]).bold = True
        for issue in quality.issues:
            doc.add_paragraph(issue, style="List Bullet")
