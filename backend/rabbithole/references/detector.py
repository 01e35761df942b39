"""Reference detection by mode (``settings.references.detector``):

* ``regex``: the grammar (:func:`rabbithole.references.grammar.detect_references`); fast, no model;
* ``llm``: the model (:class:`~rabbithole.references.llm_detector.LLMReferenceDetector`) alone;
* ``hybrid``: the grammar plus what the model adds. A model reference is a duplicate of a grammar one when
  their spans overlap and they name the same target (same unit, or no unit of its own, and the same law);
  duplicates are dropped, as are repeats among the model's own answers. When the model fails in hybrid
  mode, the grammar's references are returned and the failure counted (``Detection.llm_errors``).

What the model adds (llm and hybrid mode) is checked before it is kept: a mention being verbatim in the text
is not enough (a weak model reports "BGBl. I S. 1714" as an article). ``verify`` accepts a reference only
when it resolves to something that exists (:func:`resolving`: a document of the collection, a section or
annex of it) or is an external act, treaty, standard or URL of a form the grammar recognises
(:func:`recognised_form`, the default without a collection). Dropped references are reported
(``Detection.rejected``, ``llm_rejected``), never silently.

:class:`ReferenceDetector` is callable as ``detect(text) -> list[Reference]`` (what expansion takes);
:meth:`ReferenceDetector.run` also reports what the model added, discarded and duplicated.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.errors import ConfigurationError, RabbitholeError
from rabbithole.references.grammar import detect_references
from rabbithole.references.llm_detector import LLMReferenceDetector, StructuredLLM
from rabbithole.references.models import Reference, RefType
from rabbithole.references.resolver import ResolvedReference
from rabbithole.references.sections import unit_of
from rabbithole.registry.synonyms import normalize_key

__all__ = [
    "DETECTOR_MODES",
    "Detection",
    "DetectorMode",
    "ReferenceDetector",
    "Verify",
    "build_detector",
    "consistent",
    "merge",
    "recognised_form",
    "resolving",
]

log = logging.getLogger(__name__)

DetectorMode = Literal["regex", "llm", "hybrid"]
DETECTOR_MODES: tuple[DetectorMode, ...] = ("regex", "llm", "hybrid")

#: law name as written -> a key that is equal for names of the same document (e.g. the registry's document)
CanonicalLaw = Callable[[str], str | None]
#: a model reference -> None to accept it, else why it is dropped
Verify = Callable[[Reference], str | None]
_EXTERNAL_FORMS: Final = frozenset({RefType.EU_ACT, RefType.TREATY, RefType.STANDARD, RefType.URL})


@dataclass(slots=True)
class Detection:
    references: list[Reference] = field(default_factory=list)
    grammar: int = 0  # found by the grammar
    llm_added: int = 0  # added by the model (after de-duplication)
    llm_discarded: int = 0  # model mentions not found verbatim
    llm_duplicates: int = 0  # model references the grammar already had
    llm_errors: int = 0  # model calls that failed (hybrid mode goes on with the grammar)
    llm_rejected: int = 0  # model references dropped by the check (``verify``): nothing they name exists
    rejected: list[tuple[Reference, str]] = field(default_factory=list)  # (reference, why) of those


class ReferenceDetector:
    def __init__(
        self,
        mode: DetectorMode = "regex",
        llm: LLMReferenceDetector | None = None,
        *,
        canonical_law: CanonicalLaw | None = None,
        verify: Verify | None = None,
    ) -> None:
        if mode not in DETECTOR_MODES:
            raise ConfigurationError(f"unknown reference detector '{mode}' (use regex, llm or hybrid)")
        if mode != "regex" and llm is None:
            raise ConfigurationError(f"the '{mode}' reference detector needs an LLM")
        self.mode = mode
        self.llm = llm
        self.canonical_law = canonical_law
        self.verify = verify or recognised_form

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
        kept = list(grammar)
        replaced: set[int] = set()
        for ref in merged:
            if any(ref is g for g in grammar):
                continue
            why = consistent(ref) or self.verify(ref)
            overlapping = [g for g in grammar if ref.start < g.end and g.start < ref.end]
            if why is None and overlapping:
                # the model may only complete the grammar's reading of the same words: name the law of a
                # unit the grammar took as internal ("Strahlenschutzverordnung in ihrem § 52")
                law = _law_key(ref, self.canonical_law)
                internal = [g for g in overlapping if g.same_document and unit_of(g) == unit_of(ref)]
                same_law = [
                    g for g in overlapping if unit_of(g) is None and _law_key(g, self.canonical_law) == law
                ]
                completes = not ref.same_document and len(internal) + len(same_law) == len(overlapping)
                if completes and internal:
                    replaced.update(id(g) for g in internal)
                elif not completes:
                    why = "contradicts the grammar's reading of the same words"
            if why is None:
                kept.append(ref)
            else:
                out.rejected.append((ref, why))
        merged = sorted((r for r in kept if id(r) not in replaced), key=lambda r: (r.start, r.item_start))
        out.llm_rejected = len(out.rejected)
        if out.rejected:
            log.info(
                "LLM reference detector: %d references dropped (%s)",
                out.llm_rejected,
                "; ".join(f"{' '.join(r.mention.split())!r}: {why}" for r, why in out.rejected[:5]),
            )
        out.llm_added = len(merged) - len(grammar) + len(replaced)
        out.references = merged
        return out


_UNIT_MARKS: Final = (
    ("section", re.compile(r"§|Paragraph|[Ss]ection")),
    ("annex", re.compile(r"Anl(?:age|\.)|Anh(?:ang|ä)|Annex")),
    ("article", re.compile(r"Art(?:ikel|\.|icle)?(?![\w])")),
)


def _letters(text: str) -> str:
    return re.sub(r"[^\wäöüß]", "", text.casefold())


def consistent(ref: Reference) -> str | None:
    """Whether a model reference says what its own mention says: a § / Anlage / Artikel number only when
    the mention has that keyword and the number, a law only when the mention names it (its name or an
    abbreviation of it), and at least one of them (a mention that names nothing is no reference)."""
    mention = ref.mention
    units = {"section": ref.section, "annex": ref.annex, "article": ref.article}
    for kind, pattern in _UNIT_MARKS:
        number = units[kind]
        if number is not None and (not pattern.search(mention) or number not in mention):
            return f"claims {kind} {number}, which the mention does not name"
    named = ref.law_normalized or ref.law
    if named and not ref.same_document and not ref.external:
        stem = _letters(named)[:6]
        if stem and stem not in _letters(mention):
            return f"claims the law {named!r}, which the mention does not name"
    if not any(units.values()) and not named and ref.absatz is None and ref.type is not RefType.URL:
        return "names neither a provision nor a document"
    return None


def recognised_form(ref: Reference) -> str | None:
    """Accepts a model reference only when its mention, read by the grammar, is an external act, treaty,
    standard or URL (nothing in the collection to check it against); None: accepted, else the reason."""
    for found in detect_references(ref.mention, skip_headings=False):
        if found.type in _EXTERNAL_FORMS or (found.external and found.law_normalized):
            return None
    return "not a recognised external act, and nothing in the collection it names"


def resolving(resolve: Callable[[Reference], ResolvedReference]) -> Verify:
    """A check for model references: accepted when they resolve to something that exists (a document of
    the collection, a section or annex of it), or are an external act of a recognised form."""

    def verify(ref: Reference) -> str | None:
        target = resolve(ref)
        if target.reason is None and target.document is not None:
            return None
        if recognised_form(ref) is None:
            return None
        return f"does not resolve ({target.reason.value if target.reason else 'no target'})"

    return verify


def build_detector(
    settings: ReferenceSettings,
    llm: StructuredLLM | None = None,
    *,
    language: str = "en",
    canonical_law: CanonicalLaw | None = None,
    mode: DetectorMode | None = None,
    verify: Verify | None = None,
) -> ReferenceDetector:
    """The detector ``settings.detector`` (or ``mode``) asks for; llm/hybrid need ``llm``. ``verify``
    checks what the model adds (default: :func:`recognised_form`; with a collection: :func:`resolving`)."""
    chosen = mode or settings.detector
    model = LLMReferenceDetector(llm, language=language) if llm is not None and chosen != "regex" else None
    return ReferenceDetector(chosen, model, canonical_law=canonical_law, verify=verify)


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
