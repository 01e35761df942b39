"""How a detected and resolved reference is reported (`rabbithole refs --json`, the benchmarks).

``section`` names the unit a reference cites in the shape readers expect: the § number ("7", "9a") for §
references, the annex label for annexes ("Anlage 11"; part, table and column go to ``detail``), the
article of an act ("Artikel 83"), the division of a law ("Teil 4 Kapitel 2"). A relative reference
("Absatz 3", "nach Satz 2 Nummer 1") reports the citing section when the caller named it
(``Citing.section``), else null. ``label`` is the section label of the target the reference resolved to
("§ 7", "§§ 50 bis 52", "Anlage 4"), ``sections`` every label it is followed to (ranges with inserted
sections, divisions), ``reason`` why it did not resolve.
"""

from __future__ import annotations

from typing import Any

from rabbithole.references.models import Reference, RefType
from rabbithole.references.resolver import ResolvedReference
from rabbithole.references.sections import canonical_label, parse_section_label

__all__ = ["reference_row", "reference_rows", "reported_section"]


def _annex_label(number: str) -> str:
    return canonical_label(("annex", number.casefold()))


def reported_section(ref: Reference, target: ResolvedReference | None = None) -> str | None:
    """The unit ``ref`` cites, as reported in ``section`` (see the module docstring)."""
    if ref.section is not None and ref.type is not RefType.DOCUMENT_SECTION:
        return ref.section
    if ref.annex is not None:
        return _annex_label(ref.annex)
    if ref.article is not None:
        return f"Artikel {ref.article}"
    if ref.type is RefType.DOCUMENT_SECTION:
        return ref.division or ref.section
    if ref.relative_to is not None and target is not None and target.citing.section is not None:
        units = parse_section_label(target.citing.section)
        if units and units[0][0] == "§":
            return units[0][1]
        if units and units[0][0] == "annex":
            return _annex_label(units[0][1])
        return target.citing.section
    return None


def _detail(ref: Reference) -> str | None:
    parts = []
    if ref.annex_part is not None:
        parts.append(f"Teil {ref.annex_part}")
    if ref.type is RefType.ANNEX and ref.nummer is not None:
        parts.append(f"Nummer {ref.nummer}")
    if ref.detail:
        parts.append(ref.detail)
    return " ".join(parts) or None


def reference_row(ref: Reference, target: ResolvedReference) -> dict[str, Any]:
    """One item of `rabbithole refs --json`."""
    return {
        "mention": ref.mention,
        "start": ref.start,
        "end": ref.end,
        "type": ref.type.value,
        "section": reported_section(ref, target),
        "absatz": ref.absatz,
        "satz": ref.satz,
        "nummer": ref.nummer,
        "detail": _detail(ref),
        "target_document": target.document,
        "label": target.section,
        "sections": list(target.labels),
        "external": target.external,
        "reason": target.reason.value if target.reason is not None else None,
    }


def reference_rows(ref: Reference, target: ResolvedReference) -> list[dict[str, Any]]:
    """The items `rabbithole refs --json` prints for one reference: its row, and for an item of a range one
    more row per inserted section the range covers in the target ("§§ 7 bis 9" of a law with § 7a: a row
    for "7a" after the row for "7")."""
    row = reference_row(ref, target)
    rows = [row]
    if ref.range is None or ref.type is not RefType.SECTION:
        return rows
    for label in target.labels[1:]:
        units = parse_section_label(label)
        if not units or units[0][0] != "§":
            continue
        rows.append({**row, "section": units[0][1], "label": label, "sections": [label]})
    return rows
