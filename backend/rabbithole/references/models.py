"""Typed reference objects produced by the grammar detector (``rabbithole.references.grammar``).

A :class:`Reference` is one *target* cited in a text: "§§ 6, 7, 9 oder 9b des Atomgesetzes" yields four
references (sections 6, 7, 9, 9b), all with the law.  Span convention: every reference carries the span of
its whole *mention* (``start``/``end``, ``text[start:end] == mention``: "§§ 6, 7, 9 oder 9b des Atomgesetzes"
for all four) plus the span of the number (or range) that distinguishes it (``item_start``/``item_end``:
"9b").  A chain joined by "in Verbindung mit" is split into one mention per part.

No resolution happens here: ``law``/``law_normalized`` are names as written and in base form; a registry
maps them to documents later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, Literal


class RefType(StrEnum):
    SECTION = "section"  # § 5, § 5 Absatz 2 Satz 1, § 7 AtG (also Artikel N § M of an amending act)
    ARTICLE = "article"  # Artikel 20a des Grundgesetzes (article of a German law or treaty)
    PARAGRAPH = "paragraph"  # bare "Absatz 2" (same § as the citing position)
    SENTENCE = "sentence"  # bare "Satz 1" (same Absatz as the citing position)
    ITEM = "item"  # bare "Nummer 3" / "Buchstabe a" (same Absatz / Nummer as the citing position)
    ANNEX = "annex"  # Anlage 4, Anlage 4 Teil B, Anlage 4 Tabelle 1 Spalte 5
    LAW = "law"  # a law named without a § ("nach dem Atomgesetz", "dieses Gesetzes")
    EU_ACT = "eu_act"  # Richtlinie 2013/59/Euratom, Artikel 3 Nummer 2 der Verordnung (EU) 2016/679
    TREATY = "treaty"  # Pariser Übereinkommen, EG-Vertrag
    NUMBERED_CITATION = "numbered_citation"  # [12], [3-5], [3, 7]
    AUTHOR_YEAR = "author_year"  # [Townsend79], (Smith et al., 2019)
    DOCUMENT_SECTION = "document_section"  # see section 4.2, siehe Abschnitt 3, Teil 2 Kapitel 1
    DOCUMENT = "document"  # siehe Dokument "Sicherheitsbericht", a bare "StrlSchG", "strahlenschutzgesetz"
    STANDARD = "standard"  # KTA 1401, DIN EN ISO 9001, ISO 2919
    URL = "url"  # https://..., www...., doi:...


#: For references without their upper levels: which unit of the *citing* position supplies them.
#: "section": bare "Absatz 2" means Absatz 2 of the § it appears in; "absatz": bare "Satz 1"/"Nummer 3"
#: means that Satz/Nummer of the current Absatz; "nummer": bare "Buchstabe a" of the current Nummer;
#: "annex": bare "Teil B Nummer 1" inside an Anlage.
RelativeTo = Literal["section", "absatz", "nummer", "annex"]


@dataclass(frozen=True, slots=True)
class Reference:
    type: RefType
    mention: str  # text[start:end], verbatim (may contain line breaks)
    start: int
    end: int
    item_start: int  # span of the number/range inside the mention that identifies this reference
    item_end: int
    # legal structure (strings: "9a", "1b", "2.2.7", "a")
    article: str | None = None  # Artikel (German law, treaty or EU act)
    section: str | None = None  # § number; for document_section the number of the referenced unit
    absatz: str | None = None
    satz: str | None = None
    nummer: str | None = None
    buchstabe: str | None = None
    annex: str | None = None  # Anlage / Anhang number ("4", "XI")
    annex_part: str | None = None  # Anlage 4 *Teil B*
    detail: str | None = None  # finer locators kept as text: "Tabelle 1 Spalte 5", "erster Halbsatz"
    division: str | None = None  # document_section label: "Teil 2 Kapitel 1", "Abschnitt 3", "Section 4.2"
    # target document
    law: str | None = None  # as written, whitespace collapsed: "des Atomgesetzes", "AtG", "dieses Gesetzes"
    law_normalized: str | None = (
        None  # base form: "Atomgesetz", "Richtlinie 2013/59/Euratom"; None if same doc
    )
    standard: str | None = None  # "DIN EN ISO 9001"
    url: str | None = None
    key: str | None = None  # citation key: "12" for [12], "Townsend79"
    authors: str | None = None  # "Smith et al.", "Smith and Jones"
    year: str | None = None
    # flags
    same_document: bool = False  # no other document named ("§ 5", "dieses Gesetzes", "Absatz 2")
    relative_to: RelativeTo | None = None
    external: bool = False  # outside any corpus by nature: EU acts, treaties, URLs
    from_range: bool = False  # expanded from a range and not one of its written endpoints
    range: tuple[str, str] | None = None  # the written endpoints of the range it comes from ("7", "9")
    # the version of the law cited, when one is named ("vom 20. Juli 2001", "in der bis zum 31. Dezember
    # 2018 geltenden Fassung"): as written, the date (ISO) and whether it is the end of its validity
    version: str | None = None
    version_date: str | None = None
    version_until: bool = False

    @property
    def target_name(self) -> str | None:
        """The name a resolver looks up: normalized law, standard, URL or citation key."""
        return self.law_normalized or self.standard or self.url or self.key

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["type"] = self.type.value
        return data
