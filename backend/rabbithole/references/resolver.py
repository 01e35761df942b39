"""Resolution: the document and section a detected :class:`~rabbithole.references.models.Reference` points to.

    resolver = ReferenceResolver(registry, sections)        # one collection
    target = resolver.resolve(ref, Citing("StrlSchV.pdf", "§ 52"))
    target.document, target.section, target.reason          # "StrlSchG.pdf", "§ 80", None

* **Document**: a reference naming a law goes through the collection's registry
  (:meth:`~rabbithole.registry.DocumentRegistry.resolve`: exact, then fuzzy, then word-bounded substring;
  ambiguous names answer None). ``law_normalized`` ("Atomgesetz") is tried first, then the law as written
  ("des Atomgesetzes", "AtG"). Nothing here matches file names itself: the registry already knows the file
  names as synonyms and keeps short tokens out. A reference without a law name ("§ 5", "dieses Gesetzes",
  bare "Absatz 2") points into the citing document.
* **Section**: the unit the reference names ("§ 80", "Anlage 4", "Artikel 3") is looked up among the
  section labels the parser gave the target's chunks (:class:`SectionIndex`): labels that cover several
  units ("§§ 50 bis 52", "Anlage 1 und 2", "Art 2 und 3") answer for each of them, "Anlage" and "Anhang"
  are the same kind, an unnumbered "Anlage" answers a reference to a document's only annex. Bare
  "Absatz 2"/"Satz 1"/"Nummer 3" (``relative_to`` set) resolve to the citing passage's own section.
* **Unresolved** references are kept with a :class:`Unresolved` reason: a law not in the collection, an
  ambiguous name, an external act (EU act, treaty, URL, standard) not ingested, a section the target does
  not have, a bibliographic citation ("[12]").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rabbithole.references.divisions import division_units, sections_in_division
from rabbithole.references.models import Reference, RefType
from rabbithole.references.notes import DocumentDates, is_older_version
from rabbithole.references.sections import SectionIndex, canonical_label, parse_section_label, unit_of
from rabbithole.registry.registry import DocumentRegistry, Resolution

__all__ = [
    "Citing",
    "ReferenceResolver",
    "ResolvedReference",
    "SectionIndex",
    "Unresolved",
    "parse_section_label",
    "unit_of",
]


class Unresolved(StrEnum):
    """Why a reference has no target passage."""

    EXTERNAL = "external"  # an EU act, treaty, URL or standard that is not in the collection
    UNKNOWN_DOCUMENT = "unknown_document"  # the named law is not in the collection
    AMBIGUOUS_DOCUMENT = "ambiguous_document"  # the name fits several documents equally well
    NO_SOURCE = "no_source_document"  # an internal reference, but the citing document is not known
    NO_CITING_SECTION = "no_citing_section"  # bare "Absatz 2" in a passage without a section
    SECTION_NOT_FOUND = "section_not_found"  # the document has no such § / Anlage / Artikel
    NOT_LOCATABLE = "not_locatable"  # a bibliographic citation ("[12]", "(Smith, 2019)")
    #: an older version of a law the collection holds ("der Strahlenschutzverordnung vom 20. Juli 2001"):
    #: another document, external to the collection
    HISTORICAL_VERSION = "historical_version"


@dataclass(frozen=True, slots=True)
class Citing:
    """Where a reference was found: the citing document and the section label of the citing passage."""

    document: str | None = None
    section: str | None = None


@dataclass(frozen=True, slots=True)
class ResolvedReference:
    """A reference and its target. ``section`` is a label as the chunks carry it ("§ 80", "§§ 50 bis 52",
    "Anlage 4"); None with ``reason`` None means the document as a whole ("nach dem Atomgesetz")."""

    reference: Reference
    document: str | None = None
    section: str | None = None
    match: Resolution | None = None  # how the registry found the document (None: the citing document)
    reason: Unresolved | None = None
    citing: Citing = Citing()
    #: every label the reference covers when that is more than ``section``: a range with inserted
    #: sections ("§§ 7 bis 9": § 9, § 9a, ... for its item 9), a division ("Teil 4 Kapitel 2")
    sections: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        """The section labels to follow: ``sections``, else ``section`` alone, else none."""
        if self.sections:
            return self.sections
        return (self.section,) if self.section is not None else ()

    @property
    def external(self) -> bool:
        """Outside the collection by nature (EU act, treaty, URL) or an older version of a law."""
        return self.reference.external or self.reason in (Unresolved.EXTERNAL, Unresolved.HISTORICAL_VERSION)

    @property
    def resolved(self) -> bool:
        return self.reason is None

    @property
    def followable(self) -> bool:
        """Resolved to a section: there are passages to follow it to."""
        return self.reason is None and self.document is not None and self.section is not None

    @property
    def internal(self) -> bool:
        return self.document is not None and self.document == self.citing.document

    @property
    def target_name(self) -> str | None:
        """The name that was looked up (law, standard, URL), None for internal references."""
        ref = self.reference
        if ref.same_document:
            return None
        return ref.law_normalized or ref.law or ref.standard or ref.url or ref.key


# -- the resolver ----------------------------------------------------------------------------------------

_BIBLIOGRAPHIC: Final = frozenset({RefType.NUMBERED_CITATION, RefType.AUTHOR_YEAR})
_DOCUMENT_LEVEL: Final = frozenset(
    {RefType.LAW, RefType.TREATY, RefType.STANDARD, RefType.URL, RefType.DOCUMENT}
)
#: kinds of target that live outside a collection unless it holds them; a German law that is not in the
#: collection is an unknown document, not an external one
_EXTERNAL_KINDS: Final = frozenset({RefType.TREATY, RefType.STANDARD, RefType.URL})


class ReferenceResolver:
    """Resolves references within one collection. ``sections`` None: sections are not checked, a target
    section is then the canonical label ("§ 80", "Anlage 4", "Artikel 3") whether or not it exists."""

    def __init__(
        self,
        registry: DocumentRegistry,
        sections: SectionIndex | None = None,
        *,
        dates: Callable[[str], DocumentDates | None] | None = None,
    ) -> None:
        self.registry = registry
        self.sections = sections
        self.dates = dates
        self._names: dict[str, tuple[Resolution | None, Unresolved | None]] = {}

    def resolve_all(self, refs: Iterable[Reference], citing: Citing) -> list[ResolvedReference]:
        return [self.resolve(ref, citing) for ref in refs]

    def resolve(self, ref: Reference, citing: Citing = Citing()) -> ResolvedReference:
        if ref.type in _BIBLIOGRAPHIC:
            return ResolvedReference(ref, reason=Unresolved.NOT_LOCATABLE, citing=citing)
        # the document
        match: Resolution | None = None
        names = _names_of(ref)
        if not names:
            if ref.external or ref.type is RefType.URL:
                return ResolvedReference(ref, reason=Unresolved.EXTERNAL, citing=citing)
            if citing.document is None:
                return ResolvedReference(ref, reason=Unresolved.NO_SOURCE, citing=citing)
            document = citing.document
        else:
            match, failure = self._lookup(names, external=ref.external or ref.type in _EXTERNAL_KINDS)
            if match is None:
                if ref.version_until and failure is Unresolved.UNKNOWN_DOCUMENT:
                    failure = Unresolved.HISTORICAL_VERSION  # a version that is no longer in force
                return ResolvedReference(ref, reason=failure, citing=citing)
            document = match.document
            if ref.version_date is not None:
                dates = self.dates(document) if self.dates is not None else None
                if is_older_version(ref.version_date, ref.version_until, dates):
                    return ResolvedReference(ref, reason=Unresolved.HISTORICAL_VERSION, citing=citing)
        # the section
        if ref.relative_to is not None and ref.section is None and ref.annex is None:
            if document != citing.document or citing.section is None:
                reason = Unresolved.NO_CITING_SECTION
                return ResolvedReference(ref, document, match=match, reason=reason, citing=citing)
            return ResolvedReference(ref, document, citing.section, match, citing=citing)
        if ref.type is RefType.DOCUMENT_SECTION and ref.division and division_units(ref.division):
            return self._division(ref, document, match, citing)
        unit = None if ref.type in _DOCUMENT_LEVEL else unit_of(ref)
        if unit is None:
            return ResolvedReference(ref, document, None, match, citing=citing)
        if self.sections is None:
            return ResolvedReference(ref, document, canonical_label(unit), match, citing=citing)
        label = self.sections.find(document, unit)
        if label is None:
            reason = Unresolved.SECTION_NOT_FOUND
            return ResolvedReference(ref, document, match=match, reason=reason, citing=citing)
        extra: tuple[str, ...] = ()
        if ref.range is not None and unit[0] == "§":
            inserted = self.sections.inserted(document, unit[1], *ref.range)
            if inserted:
                extra = (label, *inserted)
        return ResolvedReference(ref, document, label, match, citing=citing, sections=extra)

    def _division(
        self, ref: Reference, document: str, match: Resolution | None, citing: Citing
    ) -> ResolvedReference:
        """A structural unit ("Teil 4 Kapitel 2"): the sections whose heading path lies inside it."""
        assert ref.division is not None
        if self.sections is None:
            return ResolvedReference(ref, document, ref.division, match, citing=citing)
        paths = self.sections.paths(document)
        citing_path: tuple[str, ...] = ()
        if citing.section is not None and document == citing.document:
            citing_path = next((p for label, p in paths if label == citing.section), ())
        labels = sections_in_division(ref.division, paths, citing_path)
        if not labels:
            reason = Unresolved.SECTION_NOT_FOUND
            return ResolvedReference(ref, document, match=match, reason=reason, citing=citing)
        return ResolvedReference(ref, document, labels[0], match, citing=citing, sections=tuple(labels))

    def resolve_name(self, name: str) -> Resolution | None:
        """The document a law name refers to (cached registry lookup)."""
        return self._lookup((name,), external=False)[0]

    def _lookup(
        self, names: tuple[str, ...], *, external: bool
    ) -> tuple[Resolution | None, Unresolved | None]:
        failure = Unresolved.UNKNOWN_DOCUMENT
        for name in names:
            cached = self._names.get(name)
            if cached is None:
                found = self.registry.resolve(name)
                if found is not None:
                    cached = (found, None)
                elif len(self.registry.candidates(name)) > 1:
                    cached = (None, Unresolved.AMBIGUOUS_DOCUMENT)
                else:
                    cached = (None, Unresolved.UNKNOWN_DOCUMENT)
                self._names[name] = cached
            if cached[0] is not None:
                return cached
            if cached[1] is Unresolved.AMBIGUOUS_DOCUMENT:
                failure = Unresolved.AMBIGUOUS_DOCUMENT
        if external and failure is Unresolved.UNKNOWN_DOCUMENT:
            failure = Unresolved.EXTERNAL
        return None, failure


def _names_of(ref: Reference) -> tuple[str, ...]:
    """Names to look the target document up by, best first; empty for the citing document."""
    if ref.same_document:
        return ()
    names = [n for n in (ref.law_normalized, ref.law, ref.standard) if n]
    return tuple(dict.fromkeys(names))
