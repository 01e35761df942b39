"""Putting the report together (pure): one global citation numbering across sections (evidence that quotes
the same text of the same page is one source, whichever section or round found it), the table of contents,
and each section's Markdown with the global numbers (the sources list is
``evidence.citations.render_sources``, shared with research runs)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from rabbithole.research.dig.evidence import evidence_order
from rabbithole.research.evidence.citations import (
    DraftClaim,
    DraftSection,
    render_claim,
    same_source,
)
from rabbithole.research.guards import GuardClaim, GuardSection, guard_draft, is_placeholder
from rabbithole.research.models import ClaimView, Evidence, TextGuards
from rabbithole.research.report.models import SectionResult
from rabbithole.research.report.prompts import labels


def canonical_ids(per_section: Sequence[Sequence[Evidence]]) -> tuple[dict[str, str], list[Evidence]]:
    """Each evidence id mapped to the id of its source (the first evidence, in outline and extraction
    order, that quotes the same place: ``citations.same_source``, as the research run numbers them), and
    the sources' evidence. ``per_section``: each section's evidence, in outline order."""
    ordered = [e for evidence in per_section for e in sorted(evidence, key=evidence_order)]
    mapping = same_source(ordered)
    kept = {e.id: e for e in reversed(ordered) if mapping[e.id] == e.id}  # an id's first occurrence
    return mapping, [kept[i] for i in dict.fromkeys(mapping.values())]


def unique_evidence(items: Sequence[Evidence]) -> list[Evidence]:
    """Evidence in extraction order, each quoted place once (a later search round that extracted the same
    sentences again adds nothing new to write from)."""
    return canonical_ids([items])[1]


def merged_drafts(sections: Sequence[SectionResult], mapping: Mapping[str, str]) -> list[DraftSection]:
    """The sections' drafts citing the sources' ids (an id no section retrieved is left as it is, so
    rendering removes and counts it)."""
    out = []
    for section in sections:
        claims = [
            DraftClaim(
                text=c.text, evidence_ids=list(dict.fromkeys(mapping.get(i, i) for i in c.evidence_ids))
            )
            for c in section.draft.claims
        ]
        out.append(DraftSection(heading=section.section.title, claims=claims))
    return out


@dataclass(slots=True)
class GuardedReport:
    """The report after the text guards: its title, the sections kept (each with its guarded draft, in
    outline order) and what the guards did."""

    title: str
    sections: list[tuple[SectionResult, DraftSection]]
    counts: TextGuards


#: a framing section's heading when the outline gave it none that is real: before the research sections,
#: after them, between them
_FRAMING = {
    "de": ("Einleitung", "Fazit", "Überblick"),
    "en": ("Introduction", "Conclusion", "Overview"),
}


def _framing_heading(index: int, sections: Sequence[SectionResult], language: str) -> str:
    research = [i for i, r in enumerate(sections) if r.section.research]
    before, after, between = _FRAMING.get(language, _FRAMING["en"])
    if not research or index < research[0]:
        return before
    return after if index > research[-1] else between


def _heading_hint(
    result: SectionResult, framing: str | None = None, taken: set[str] | None = None
) -> str | None:
    """What a section's placeholder heading becomes: its first question, its description, or where its
    evidence stands ("StrlSchG § 78: Dosisgrenzwerte ..."), whichever is real text first; a framing section
    without any: ``framing`` (its place in the report). A weak model's outline can hold placeholders
    everywhere; a numbered "Teil k" is the guards' last resort."""
    places = [
        e.heading.strip()
        if e.section and e.heading.strip().startswith(e.section)
        else " ".join(p for p in (e.section, e.heading.strip()) if p)
        for e in result.evidence
    ]
    documents = [PurePath(e.document).stem for e in result.evidence]
    candidates = [*result.section.questions, result.section.description, *places, *documents]
    taken = set() if taken is None else taken
    real = next(
        (
            c.strip()
            for c in candidates
            if c.strip() and not is_placeholder(c) and c.strip().casefold() not in taken
        ),
        None,
    )
    hint = real if real is not None or result.section.research else framing
    if hint is not None:
        taken.add(hint.casefold())  # two sections never get one heading (the guards would number them)
    return hint


def guarded_report(
    title: str,
    sections: Sequence[SectionResult],
    drafts: Sequence[DraftSection],
    *,
    question: str,
    language: str,
) -> GuardedReport:
    """The text guards (``research.guards``) over all sections together: a sentence repeated in another
    section is dropped there (the research sections keep theirs: a framing section that repeats them loses
    the repeat, wherever it stands); a placeholder heading takes its section's first question; a
    placeholder title the question. A section of the approved outline is never dropped for repeating others:
    it keeps its place with a note naming the section that says them (its evidence ids merged there); one
    the model left without claims is dropped. Outline order is kept, and so is each section's note."""
    framing = {r.section.id: _framing_heading(i, sections, language) for i, r in enumerate(sections)}
    pairs = sorted(zip(sections, drafts, strict=True), key=lambda p: not p[0].section.research)
    taken = {d.heading.strip().casefold() for _, d in pairs if not is_placeholder(d.heading)}
    hints = {
        r.section.id: _heading_hint(r, framing[r.section.id], taken)
        for r, d in pairs
        if is_placeholder(d.heading)
    }
    notes = {r.section.id: d.note for r, d in pairs}
    guarded = guard_draft(
        title,
        [
            GuardSection(
                d.heading,
                [GuardClaim(c.text, list(c.evidence_ids)) for c in d.claims],
                hint=hints.get(r.section.id),
                key=r.section.id,
            )
            for r, d in pairs
        ],
        task_titles=[],
        question=question,
        language=language,
        keep_sections=True,
    )
    order = {r.section.id: i for i, r in enumerate(sections)}
    headings = {str(g.key): g.heading for g in guarded.sections}
    stated_under = labels(language)["stated_under"]

    def note(g: GuardSection) -> str | None:
        if g.repeats is None:
            return notes[str(g.key)]
        said = stated_under.format(heading=headings[g.repeats])
        return " ".join(n for n in (notes[str(g.key)], said) if n)

    kept = [
        (
            sections[order[str(g.key)]],
            DraftSection(
                heading=g.heading,
                claims=[DraftClaim(text=c.text, evidence_ids=c.evidence_ids) for c in g.claims],
                note=note(g),
            ),
        )
        for g in sorted(guarded.sections, key=lambda g: order[str(g.key)])
    ]
    return GuardedReport(guarded.title, kept, guarded.counts)


def slug(heading: str) -> str:
    """A Markdown heading's anchor as common renderers make it (lower case, punctuation dropped, dashes)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r" ", "-", text)


def table_of_contents(headings: Sequence[str], label: str) -> str:
    lines = [f"## {label}", ""]
    lines += [f"{i}. [{h}](#{slug(h)})" for i, h in enumerate(headings, start=1)]
    return "\n".join(lines)


def with_contents(markdown: str, toc: str) -> str:
    """The report with the table of contents after its title."""
    title, sep, rest = markdown.partition("\n\n")
    if not title.startswith("# "):
        return f"{toc}\n\n{markdown}"
    return f"{title}\n\n{toc}{sep}{rest}" if sep else f"{title}\n\n{toc}"


def section_markdown(
    heading: str, claims: Sequence[ClaimView], *, uncited_mark: str = "", note: str | None = None
) -> str:
    """One section with the report's global [n] numbers (a claim flagged ``uncited``: ``[uncited_mark]``),
    its ``note`` (how it was made) in italics under the heading."""
    text = " ".join(
        render_claim(c.text, c.citations, uncited_mark=uncited_mark if c.uncited else "")
        for c in claims
        if c.section == heading
    )
    blocks = [f"## {heading}"]
    if note and note.strip():
        blocks.append(f"*{' '.join(note.split())}*")
    if text:
        blocks.append(text)
    return "\n\n".join(blocks)
