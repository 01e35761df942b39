"""Reference detection by mode (``settings.references.detector``):

* ``regex``: the grammar (:func:`rabbithole.references.grammar.detect_references`); fast, no model;
* ``llm``: the model (:class:`~rabbithole.references.llm_detector.LLMReferenceDetector`) alone;
* ``hybrid``: the grammar plus what the model adds. A model reference is a duplicate of a grammar one when
  their spans overlap and they name the same target (same unit, or no unit of its own, and the same law);
  duplicates are dropped, as are repeats among the model's own answers. When the model fails in hybrid
  mode, the grammar's references are returned and the failure counted (``Detection.llm_errors``).

:class:`ReferenceDetector` is callable as ``detect(text) -> list[Reference]`` (what expansion takes);
:meth:`ReferenceDetector.run` also reports what the model added, discarded and duplicated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.errors import ConfigurationError, RabbitholeError
from rabbithole.references.grammar import detect_references
from rabbithole.references.llm_detector import LLMReferenceDetector, StructuredLLM
from rabbithole.references.models import Reference
from rabbithole.references.sections import unit_of
from rabbithole.registry.synonyms import normalize_key

__all__ = ["DETECTOR_MODES", "Detection", "DetectorMode", "ReferenceDetector", "build_detector", "merge"]

log = logging.getLogger(__name__)

DetectorMode = Literal["regex", "llm", "hybrid"]
DETECTOR_MODES: tuple[DetectorMode, ...] = ("regex", "llm", "hybrid")

#: law name as written -> a key that is equal for names of the same document (e.g. the registry's document)
CanonicalLaw = Callable[[str], str | None]


@dataclass(slots=True)
class Detection:
    references: list[Reference] = field(default_factory=list)
    grammar: int = 0  # found by the grammar
    llm_added: int = 0  # added by the model (after de-duplication)
    llm_discarded: int = 0  # model mentions not found verbatim
    llm_duplicates: int = 0  # model references the grammar already had
    llm_errors: int = 0  # model calls that failed (hybrid mode goes on with the grammar)


class ReferenceDetector:
    def __init__(
        self,
        mode: DetectorMode = "regex",
        llm: LLMReferenceDetector | None = None,
        *,
        canonical_law: CanonicalLaw | None = None,
    ) -> None:
        if mode not in DETECTOR_MODES:
            raise ConfigurationError(f"unknown reference detector '{mode}' (use regex, llm or hybrid)")
        if mode != "regex" and llm is None:
            raise ConfigurationError(f"the '{mode}' reference detector needs an LLM")
        self.mode = mode
        self.llm = llm
        self.canonical_law = canonical_law

    def __call__(self, text: str) -> list[Reference]:
        return self.run(text).references

    def detect(self, text: str) -> list[Reference]:
        return self.run(text).references

    def run(self, text: str) -> Detection:
        out = Detection()
        grammar = detect_references(text) if self.mode != "llm" else []
        out.grammar = len(grammar)
        if self.llm is None or self.mode == "regex":
            out.references = grammar
            return out
        try:
            found = self.llm.detect(text, grammar)
        except RabbitholeError as exc:
            if self.mode == "llm":
                raise
            log.warning("LLM reference detection failed, using the grammar's references: %s", exc)
            out.llm_errors += 1
            out.references = grammar
            return out
        out.llm_discarded = found.discarded
        merged, duplicates = merge(grammar, found.references, self.canonical_law)
        out.llm_duplicates = duplicates
        out.llm_added = len(merged) - len(grammar)
        out.references = merged
        return out


def build_detector(
    settings: ReferenceSettings,
    llm: StructuredLLM | None = None,
    *,
    language: str = "en",
    canonical_law: CanonicalLaw | None = None,
    mode: DetectorMode | None = None,
) -> ReferenceDetector:
    """The detector ``settings.detector`` (or ``mode``) asks for; llm/hybrid need ``llm``."""
    chosen = mode or settings.detector
    model = LLMReferenceDetector(llm, language=language) if llm is not None and chosen != "regex" else None
    return ReferenceDetector(chosen, model, canonical_law=canonical_law)


def _law_key(ref: Reference, canonical_law: CanonicalLaw | None) -> str:
    if ref.same_document:
        return ""
    name = ref.law_normalized or ref.law or ref.standard or ref.url or ""
    if canonical_law is not None and name:
        canonical = canonical_law(name)
        if canonical is not None:
            return "doc:" + canonical
    return normalize_key(name)


def merge(
    grammar: Sequence[Reference], extra: Sequence[Reference], canonical_law: CanonicalLaw | None = None
) -> tuple[list[Reference], int]:
    """Grammar references plus the ``extra`` ones that are not duplicates; returns them (by position) and
    the number of duplicates dropped."""
    kept: list[Reference] = list(grammar)
    base = [(r, _law_key(r, canonical_law), unit_of(r)) for r in grammar]
    duplicates = 0
    for ref in extra:
        key, unit = _law_key(ref, canonical_law), unit_of(ref)
        # overlapping spans, the same law, and the same unit (or none of its own: "des Atomgesetzes")
        duplicate = any(
            ref.start < other.end
            and other.start < ref.end
            and key == other_key
            and (unit is None or unit == other_unit)
            for other, other_key, other_unit in base
        )
        if duplicate:
            duplicates += 1
            continue
        kept.append(ref)
        base.append((ref, key, unit))
    kept.sort(key=lambda r: (r.start, r.item_start))
    return kept, duplicates
