"""LLM reference detector: asks the model for references the grammar misses.

The model answers a :class:`LLMReferenceList` through ``LLMClient.structured`` (schema-constrained output,
bounded retries). Nothing it says is trusted blindly: every mention must be found **verbatim** in the text
(whitespace runs may differ: PDF text breaks lines where the model writes spaces), else it is discarded and
counted. Located mentions become ordinary :class:`~rabbithole.references.models.Reference` objects with
their spans, so resolution and expansion treat them like the grammar's. Long texts are sent in windows of
``max_chars`` (cut at paragraph breaks), each with the grammar's mentions of that window as "already found".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, Field

from rabbithole.references.lawnames import THIS_DOC_RE
from rabbithole.references.models import Reference, RefType, RelativeTo
from rabbithole.references.prompts import reference_detection_messages

__all__ = ["LLMDetection", "LLMMention", "LLMReferenceDetector", "LLMReferenceList", "StructuredLLM"]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

MentionKind = Literal[
    "section",
    "article",
    "annex",
    "paragraph",
    "law",
    "eu_act",
    "treaty",
    "standard",
    "document_section",
    "url",
]


class LLMMention(BaseModel):
    """One reference as the model reports it."""

    mention: str = Field(description="The reference exactly as written in the text, copied verbatim.")
    kind: MentionKind = Field(description="What is cited.")
    section: str | None = Field(None, description='The § number, e.g. "7" or "9a".')
    absatz: str | None = Field(None, description="The Absatz (paragraph) number.")
    satz: str | None = Field(None, description="The Satz (sentence) number.")
    nummer: str | None = Field(None, description="The Nummer (item) number.")
    annex: str | None = Field(None, description="The Anlage/Anhang number.")
    article: str | None = Field(None, description="The Artikel number.")
    law: str | None = Field(None, description="The cited law or act as written; null for the text's own one.")
    note: str | None = Field(None, description="Optional remark.")


class LLMReferenceList(BaseModel):
    """References in a text that the already-found list does not contain."""

    references: list[LLMMention] = Field(default_factory=list)


class StructuredLLM(Protocol):
    """What the detector needs of :class:`rabbithole.llm.LLMClient`."""

    def structured(
        self, schema: type[T], messages: list[BaseMessage], *, retries: int | None = None
    ) -> T: ...


@dataclass(slots=True)
class LLMDetection:
    references: list[Reference] = field(default_factory=list)
    proposed: int = 0  # mentions the model returned
    discarded: int = 0  # not found verbatim in the text (or empty)
    discarded_mentions: list[str] = field(default_factory=list)


_KIND_TYPE = {
    "section": RefType.SECTION,
    "article": RefType.ARTICLE,
    "annex": RefType.ANNEX,
    "paragraph": RefType.PARAGRAPH,
    "law": RefType.LAW,
    "eu_act": RefType.EU_ACT,
    "treaty": RefType.TREATY,
    "standard": RefType.STANDARD,
    "document_section": RefType.DOCUMENT_SECTION,
    "url": RefType.URL,
}
_EXTERNAL = frozenset({RefType.EU_ACT, RefType.TREATY, RefType.URL})
_UNIT_PREFIX = re.compile(
    r"^\s*(?:§§?|Abs(?:atz|\.)?|Satz|S\.|Nr\.?|Nummer|Anlage|Anhang|Art(?:ikel|\.)?)\s*", re.I
)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


class LLMReferenceDetector:
    """Finds references with the model; ``language`` is the language of the model's free text (notes)."""

    def __init__(self, llm: StructuredLLM, *, language: str = "en", max_chars: int = 6000) -> None:
        self.llm = llm
        self.language = language
        self.max_chars = max(200, max_chars)

    def detect(self, text: str, known: Sequence[Reference] = ()) -> LLMDetection:
        """References the model finds in ``text``; ``known`` (the grammar's) are shown as already found."""
        out = LLMDetection()
        for start, end in text_windows(text, self.max_chars):
            window = text[start:end]
            if not window.strip():
                continue
            seen = [r.mention for r in known if r.start >= start and r.end <= end]
            messages = reference_detection_messages(window, language=self.language, known=seen)
            answer = self.llm.structured(LLMReferenceList, messages)
            located = locate_mentions(window, answer.references)
            out.proposed += len(answer.references)
            for mention, span in zip(answer.references, located, strict=True):
                if span is None:
                    out.discarded += 1
                    out.discarded_mentions.append(mention.mention)
                    continue
                out.references.append(to_reference(mention, span[0] + start, span[1] + start, text))
        if out.discarded:
            log.info("LLM reference detector: %d of %d mentions not in the text", out.discarded, out.proposed)
        out.references.sort(key=lambda r: (r.start, r.item_start))
        return out


def text_windows(text: str, max_chars: int) -> list[tuple[int, int]]:
    """[start, end) windows of at most ``max_chars``, cut at a paragraph break where there is one."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + max_chars)
        if end < len(text):
            breaks = [m.end() for m in _PARAGRAPH_BREAK.finditer(text, start + max_chars // 2, end)]
            if breaks:
                end = breaks[-1]
            else:
                space = text.rfind(" ", start + max_chars // 2, end)
                end = space if space > start else end
        spans.append((start, end))
        start = end
    return spans


def _pattern(mention: str) -> re.Pattern[str] | None:
    words = mention.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def locate_mentions(text: str, mentions: Sequence[LLMMention]) -> list[tuple[int, int] | None]:
    """Each mention's span in ``text`` (verbatim up to whitespace), or None. A mention given several times
    takes its successive occurrences."""
    cursor: dict[str, int] = {}
    out: list[tuple[int, int] | None] = []
    for item in mentions:
        pattern = _pattern(item.mention)
        if pattern is None:
            out.append(None)
            continue
        key = " ".join(item.mention.split())
        m = pattern.search(text, cursor.get(key, 0)) or pattern.search(text)
        if m is None:
            out.append(None)
            continue
        cursor[key] = m.end()
        out.append((m.start(), m.end()))
    return out


def _clean_number(value: str | None) -> str | None:
    if value is None:
        return None
    cleaned = _UNIT_PREFIX.sub("", value).strip().rstrip(".")
    return cleaned or None


def to_reference(item: LLMMention, start: int, end: int, text: str) -> Reference:
    """A located mention as a Reference (span ``text[start:end]``)."""
    ref_type = _KIND_TYPE[item.kind]
    section = _clean_number(item.section)
    annex = _clean_number(item.annex)
    article = _clean_number(item.article)
    absatz = _clean_number(item.absatz)
    law = " ".join(item.law.split()) if item.law and item.law.strip() else None
    same_document = law is None or THIS_DOC_RE.fullmatch(law) is not None
    if ref_type is RefType.PARAGRAPH and section is not None:
        ref_type = RefType.SECTION
    relative: RelativeTo | None = "section" if ref_type is RefType.PARAGRAPH and section is None else None
    mention = text[start:end]
    item_start, item_end = start, end
    number = section or annex or article
    if number:
        at = mention.find(number)
        if at >= 0:
            item_start, item_end = start + at, start + at + len(number)
    return Reference(
        type=ref_type,
        mention=mention,
        start=start,
        end=end,
        item_start=item_start,
        item_end=item_end,
        article=article,
        section=section,
        absatz=absatz,
        satz=_clean_number(item.satz),
        nummer=_clean_number(item.nummer),
        annex=annex,
        law=law,
        law_normalized=None if same_document else law,
        same_document=same_document and ref_type not in _EXTERNAL,
        relative_to=relative,
        external=ref_type in _EXTERNAL,
        url=mention if ref_type is RefType.URL else None,
    )
