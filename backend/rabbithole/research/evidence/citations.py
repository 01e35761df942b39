"""The report's Markdown, rendered from structured claims, with one stable ``[n]`` numbering.

Synthesis returns sections of claims, each claim a text and the evidence ids it rests on. ``render_report``
numbers the sources in order of first citation, drops (and counts, and names in a warning) ids the run never
retrieved, strips anything in the model's text that looks like a citation marker, and places the rendered
markers before each claim's final punctuation: every ``[n]`` in the report comes from an evidence id, none
is ever parsed out of free text. A source is a quoted place: evidence ids that quote the same text at the
same place (``same_source``: two tasks that extracted the same sentences) share one ``[n]``.
``render_sources`` renders the numbered sources list.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.research.models import Evidence, Source

__all__ = [
    "DraftClaim",
    "DraftSection",
    "RenderedClaim",
    "RenderedReport",
    "render_claim",
    "render_report",
    "render_sources",
    "same_source",
    "source_location",
    "strip_markers",
]


class DraftClaim(BaseModel):
    """One statement of the draft report and the evidence ids that support it."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    text: str
    evidence_ids: list[str] = Field(default_factory=list)


class DraftSection(BaseModel):
    heading: str
    claims: list[DraftClaim] = Field(default_factory=list)
    note: str | None = Field(
        None, description="Shown in italics under the heading (how the section was made), never a claim."
    )


@dataclass(slots=True)
class RenderedClaim:
    """A claim as rendered: its text without markers, the ``[n]`` numbers and the evidence ids kept (one
    per source: the first it cites of each)."""

    heading: str
    text: str
    numbers: list[int]
    evidence_ids: list[str]


@dataclass(slots=True)
class RenderedReport:
    markdown: str
    order: list[str] = field(default_factory=list)  # evidence ids; order[n - 1] is cited first as [n]
    claims: list[RenderedClaim] = field(default_factory=list)
    removed: int = 0  # citations of unknown ids, dropped
    warnings: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)  # source id -> n (see ``number``)
    same: Mapping[str, str] = field(default_factory=dict)  # evidence id -> source id (``same_source``)

    def number(self, evidence_id: str) -> int | None:
        """The ``[n]`` of the source ``evidence_id`` quotes (cited through it or through another evidence
        id quoting the same place); None when the report cites that source nowhere."""
        return self.sources.get(self.same.get(evidence_id, evidence_id))


def _wording(quote: str) -> str:
    """A quote as compared: Unicode compatibility forms folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", quote).split())


def same_source(evidence: Iterable[Evidence]) -> dict[str, str]:
    """Each evidence id mapped to the id of its source: the first evidence (in the order given) that quotes
    the same place, that is in the same collection, document and page (a web page: the same address) either
    the same offsets or the same quote (Unicode forms and whitespace normalised)."""
    roots: dict[tuple[object, ...], str] = {}
    out: dict[str, str] = {}
    for e in evidence:
        if e.id in out:
            continue
        where = (e.collection, e.document, e.url or "", e.page)
        keys = ((*where, "at", e.start, e.end), (*where, "quote", _wording(e.quote)))
        root = next((roots[k] for k in keys if k in roots), e.id)
        for k in keys:
            roots.setdefault(k, root)
        out[e.id] = root
    return out


_ID_TOKEN = r"(?:[A-Za-z]{1,3}\d+(?:[-_][A-Za-z]{1,3}\d+)+|[Ee]\d+)"
_MARKERS = re.compile(
    r"\s*(?:"
    r"\[\s*\^?[\w\s\-.:,;#/†]{0,40}?\d[\w\s\-.:,;#/†]{0,40}\]"  # [3] [E1] [t1-e2] [1, 2] [Quelle 2] [^1]
    r"|【[^】\n]{0,60}】"  # 【3†L1-L5】
    r"|\(\s*(?:Quellen?|Sources?|Belege?|Evidence|Nachweise?|Refs?\.?|Zitat|Citation)\b[^()\n]{0,40}\)"
    rf"|\(\s*{_ID_TOKEN}(?:\s*[,;/]\s*{_ID_TOKEN})*\s*\)"  # (t1-e2) (t1-e2, t2-e1) (E1)
    r")",
    re.IGNORECASE,
)
_FINAL_PUNCT = re.compile(r"[.!?;:…]+$")


def strip_markers(text: str) -> str:
    """``text`` without anything that looks like a citation marker, whitespace collapsed."""
    return " ".join(_MARKERS.sub("", text).split())


def render_report(
    sections: Sequence[DraftSection],
    known_ids: Collection[str],
    *,
    title: str | None = None,
    uncited_mark: str = "",
    unmarked: Collection[str] = (),
    same: Mapping[str, str] | None = None,
) -> RenderedReport:
    """The Markdown report (no trailing newline) and what was cited, numbered and removed. With
    ``uncited_mark``, a claim that cites nothing (after removal) carries ``[uncited_mark]`` where its
    ``[n]`` would be, unless its text is one of ``unmarked``. ``same``: each evidence id's source id
    (``same_source``); ids of one source share its number, and a claim cites each source once."""
    known = set(known_ids)
    source_of = dict(same or {})
    numbers: dict[str, int] = {}  # source id -> n
    order: list[str] = []
    unknown: Counter[str] = Counter()
    claims: list[RenderedClaim] = []
    blocks: list[str] = []
    if title and title.strip():
        blocks.append(f"# {_heading_text(title)}")
    for section in sections:
        heading = _heading_text(section.heading)
        sentences: list[str] = []
        for claim in section.claims:
            text = strip_markers(claim.text)
            if not text:
                continue
            ids: list[str] = []
            cited: list[int] = []
            for evidence_id in dict.fromkeys(claim.evidence_ids):
                if evidence_id not in known:
                    unknown[evidence_id] += 1
                    continue
                source = source_of.get(evidence_id, evidence_id)
                if source not in numbers:
                    numbers[source] = len(numbers) + 1
                    order.append(evidence_id)
                if numbers[source] in cited:
                    continue  # another id of a source this claim cites already
                cited.append(numbers[source])
                ids.append(evidence_id)
            cited.sort()
            claims.append(RenderedClaim(heading, text, cited, ids))
            mark = uncited_mark if not ids and text not in unmarked else ""
            sentences.append(render_claim(text, cited, uncited_mark=mark))
        if not sentences:
            continue
        if heading:
            blocks.append(f"## {heading}")
        if section.note and section.note.strip():
            blocks.append(f"*{' '.join(strip_markers(section.note).split())}*")
        blocks.append(_plain_paragraph(" ".join(sentences)))
    warnings = [
        f'Removed {count} citation{"s" if count > 1 else ""} of unknown evidence id "{evidence_id}".'
        for evidence_id, count in unknown.items()
    ]
    return RenderedReport(
        markdown="\n\n".join(blocks),
        order=order,
        claims=claims,
        removed=sum(unknown.values()),
        warnings=warnings,
        sources=numbers,
        same=source_of,
    )


_BLOCK_START = re.compile(r"^(\d+)([.)])(?=\s)|^([-+*>#])(?=\s)")


def _plain_paragraph(text: str) -> str:
    """A paragraph that Markdown reads as text: a start that would make it a list, a quote or a heading
    ("2. für ..." from a finding, "- ...") is escaped."""
    return _BLOCK_START.sub(
        lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else f"\\{m.group(3)}", text
    )


def _heading_text(heading: str) -> str:
    return strip_markers(heading.strip().lstrip("#"))


def render_claim(text: str, numbers: list[int], *, uncited_mark: str = "") -> str:
    """A claim's text with its ``[n]`` markers placed before its final punctuation; without numbers,
    ``[uncited_mark]`` there when one is given."""
    if not numbers:
        return _with_markers(text, f"[{uncited_mark}]") if uncited_mark else text
    return _with_markers(text, "".join(f"[{n}]" for n in numbers))


def _with_markers(text: str, markers: str) -> str:
    final = _FINAL_PUNCT.search(text)
    if final is None:
        return f"{text} {markers}"
    return f"{text[: final.start()].rstrip()} {markers}{final.group()}"


def source_location(source: Source, page_label: str) -> list[str]:
    """Where a source is, as parts to join: document, page and section; a web source: its title, its
    address and "(web)"."""
    if source.kind == "web":
        return [p for p in (source.title or source.document, source.url) if p] + ["(web)"]
    parts = [source.document, f"{page_label} {source.page}"]
    if source.section:
        parts.append(source.section)
    return parts


def render_sources(
    sources: Sequence[Source],
    *,
    heading: str,
    page_label: str,
    weak_label: str,
    chain_label: str,
    ocr_low_label: str = "OCR, low confidence: {confidence} %",
) -> str:
    """The sources list (no trailing newline), as the DOCX export has it: ``[n] document, <page_label> N,
    section — "quote"`` per source (a web source: ``[n] title, url, (web) — "quote"``), a weakly supported
    one marked ``*(<weak_label>)*`` after its place, and a source reached through references followed by
    its chain (``(<chain_label>: document <page_label> N (mention) → ...)``); a quote from a page OCR read
    with low confidence marked ``*(<ocr_low_label>)*``; in ``n`` order, one paragraph each; empty when
    there are no sources."""
    if not sources:
        return ""
    lines = [f"## {heading.strip()}"]
    for source in sorted(sources, key=lambda s: s.n):
        entry = f"[{source.n}] {', '.join(source_location(source, page_label))}"
        if source.support is not None and source.support.flagged:
            entry += f" *({weak_label})*"
        if source.ocr_low_confidence and source.ocr_confidence is not None:
            entry += f" *({ocr_low_label.format(confidence=round(source.ocr_confidence))})*"
        quote = " ".join(source.quote.split())
        if quote:
            entry += f' — "{quote}"'
        if len(source.chain) > 1:
            steps = " → ".join(
                f"{step.document} {page_label} {step.page}" + (f" ({step.mention})" if step.mention else "")
                for step in source.chain
            )
            entry += f" ({chain_label}: {steps})"
        lines.append(entry)
    return "\n\n".join(lines)
