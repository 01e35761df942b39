from __future__ import annotations

import re

import pytest

from rabbithole.research.evidence.citations import (
    DraftClaim,
    DraftSection,
    render_report,
    render_sources,
    strip_markers,
)
from rabbithole.research.export.docx import render_docx
from rabbithole.research.export.labels import labels
from rabbithole.research.models import ChainStep, ResearchResult, Source, Support

KNOWN = {"t1-e1", "t1-e2", "t2-e1", "t2-e5"}


def claim(text: str, *ids: str) -> DraftClaim:
    return DraftClaim(text=text, evidence_ids=list(ids))


def test_numbering_follows_first_citation_and_is_stable() -> None:
    report = render_report(
        [
            DraftSection(
                heading="Grenzwerte",
                claims=[
                    claim("Der Grenzwert beträgt 20 mSv.", "t2-e5", "t1-e1"),
                    claim("Die Behörde kann 50 mSv zulassen.", "t1-e1"),
                ],
            ),
            DraftSection(
                heading="Verfahren", claims=[claim("Die Prüfung dauert vier Wochen.", "t1-e2", "t2-e5")]
            ),
        ],
        KNOWN,
        title="Strahlenschutz",
    )
    assert report.order == ["t2-e5", "t1-e1", "t1-e2"]
    assert report.markdown == (
        "# Strahlenschutz\n\n"
        "## Grenzwerte\n\n"
        "Der Grenzwert beträgt 20 mSv [1][2]. Die Behörde kann 50 mSv zulassen [2].\n\n"
        "## Verfahren\n\n"
        "Die Prüfung dauert vier Wochen [1][3]."
    )
    assert [(c.heading, c.text, c.numbers, c.evidence_ids) for c in report.claims] == [
        ("Grenzwerte", "Der Grenzwert beträgt 20 mSv.", [1, 2], ["t2-e5", "t1-e1"]),
        ("Grenzwerte", "Die Behörde kann 50 mSv zulassen.", [2], ["t1-e1"]),
        ("Verfahren", "Die Prüfung dauert vier Wochen.", [1, 3], ["t1-e2", "t2-e5"]),
    ]
    assert report.removed == 0
    assert report.warnings == []
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", report.markdown)}
    assert cited == set(range(1, len(report.order) + 1))


def test_unknown_ids_are_removed_counted_and_named() -> None:
    report = render_report(
        [
            DraftSection(
                heading="A",
                claims=[
                    claim("Erster Satz.", "t9-e9", "t1-e1", "t1-e1"),
                    claim("Zweiter Satz.", "t9-e9"),
                    claim("Dritter Satz.", "made-up"),
                ],
            )
        ],
        KNOWN,
    )
    assert report.order == ["t1-e1"]
    assert report.removed == 3
    assert len(report.warnings) == 2
    assert '"t9-e9"' in report.warnings[0] and "2 citations" in report.warnings[0]
    assert '"made-up"' in report.warnings[1]
    assert report.markdown == "## A\n\nErster Satz [1]. Zweiter Satz. Dritter Satz."
    assert report.claims[1].numbers == [] and report.claims[1].evidence_ids == []


def test_markers_in_model_text_are_stripped_never_parsed() -> None:
    text = (
        "Die Frist beträgt vier Wochen [3] [E1][t1-e2] (Quelle 2) (t2-e1) [1, 4] 【3†L1-L5】 "
        "und gilt nach § 57 Absatz (1) [Hrsg.] [...]."
    )
    report = render_report([DraftSection(heading="H", claims=[claim(text, "t2-e1")])], KNOWN)
    assert report.markdown == (
        "## H\n\nDie Frist beträgt vier Wochen und gilt nach § 57 Absatz (1) [Hrsg.] [...] [1]."
    )
    assert report.order == ["t2-e1"]  # only the structured id counts


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Satz [12].", "Satz."),
        ("Satz [^1].", "Satz."),
        ("Satz (Source: t1-e2).", "Satz."),
        ("Satz (Belege 1, 2).", "Satz."),
        ("Satz (t1-e2; t3-e4).", "Satz."),
        ("Satz nach Anlage 4 (Teil B).", "Satz nach Anlage 4 (Teil B)."),
        ("Satz (2017) bleibt.", "Satz (2017) bleibt."),
        ("  viel   Raum\n hier ", "viel Raum hier"),
    ],
)
def test_strip_markers(raw: str, clean: str) -> None:
    assert strip_markers(raw) == clean


def test_marker_placement() -> None:
    sections = [
        DraftSection(
            heading="## Ergebnis [2]",
            claims=[
                claim("Ohne Schlusszeichen", "t1-e1"),
                claim("Frage?", "t1-e1"),
                claim("Mehrere...", "t1-e2"),
                claim('Er sagte "ja."', "t1-e2"),
                claim("Ohne Beleg."),
            ],
        )
    ]
    report = render_report(sections, KNOWN)
    assert report.markdown == (
        '## Ergebnis\n\nOhne Schlusszeichen [1] Frage [1]? Mehrere [2]... Er sagte "ja." [2] Ohne Beleg.'
    )


def test_empty_claims_and_sections_are_skipped() -> None:
    sections = [
        DraftSection(heading="Leer", claims=[]),
        DraftSection(heading="Nur Marker", claims=[claim(" [1] [t1-e1] ", "t1-e1")]),
        DraftSection(heading="", claims=[claim("Ohne Überschrift.", "t2-e1")]),
    ]
    report = render_report(sections, KNOWN, title="  ")
    assert report.markdown == "Ohne Überschrift [1]."
    assert report.order == ["t2-e1"]
    assert len(report.claims) == 1
    assert render_report([], KNOWN).markdown == ""


def source(n: int, section: str | None, quote: str) -> Source:
    return Source(
        n=n,
        evidence_id=f"e{n}",
        collection="sample",
        document="StrlSchG.pdf",
        page=40 + n,
        section=section,
        quote=quote,
        start=0,
        end=len(quote),
    )


def test_render_sources() -> None:
    text = render_sources(
        [source(2, None, "Zweites\nZitat."), source(1, "§ 57", "Die Behörde prüft die Anzeige.")],
        heading="Quellen",
        page_label="Seite",
        weak_label="schwach belegt",
        chain_label="Verweiskette",
    )
    assert text == (
        "## Quellen\n\n"
        '[1] StrlSchG.pdf, Seite 41, § 57 — "Die Behörde prüft die Anzeige."\n\n'
        '[2] StrlSchG.pdf, Seite 42 — "Zweites Zitat."'
    )
    assert render_sources([], heading="Sources", page_label="p.", weak_label="weak", chain_label="via") == ""


def test_the_markdown_sources_carry_the_weak_flag_and_the_chain_as_the_docx_does() -> None:
    """The Markdown export said neither that a citation is weakly supported nor how references led to it,
    which the Word export says; both now say the same."""
    weak = source(1, "§ 57", "Die Behörde prüft die Anzeige.").model_copy(
        update={
            "support": Support(score=0.2, overlap=0.1, similarity=0.3, flagged=True),
            "chain": [
                ChainStep(chunk_id="c1", document="AtG.pdf", page=3, mention="§ 57 StrlSchG"),
                ChainStep(chunk_id="c2", document="StrlSchG.pdf", page=41),
            ],
        }
    )
    words = labels("de")
    markdown = render_sources(
        [weak, source(2, None, "Zweites Zitat.")],
        heading="Quellen",
        page_label=words["page"],
        weak_label=words["weak"],
        chain_label=words["chain"],
    )
    assert markdown.split("\n\n")[1] == (
        '[1] StrlSchG.pdf, S. 41, § 57 *(schwach belegt)* — "Die Behörde prüft die Anzeige." '
        "(Verweiskette: AtG.pdf S. 3 (§ 57 StrlSchG) → StrlSchG.pdf S. 41)"
    )
    assert markdown.split("\n\n")[2] == '[2] StrlSchG.pdf, S. 42 — "Zweites Zitat."'
    result = ResearchResult(
        run_id="r", question="Wer prüft?", language="de", status="done", sources=[weak], report_markdown="x"
    )
    docx_text = "\n".join(p.text for p in render_docx(result).paragraphs)
    assert f"({words['weak']})" in docx_text
    assert "AtG.pdf S. 3 (§ 57 StrlSchG) → StrlSchG.pdf S. 41" in docx_text


def test_a_paragraph_starting_like_a_list_stays_a_paragraph() -> None:
    """A finding such as "2. für Personen ..." (an assembled section's first sentence) is not a list item."""
    sections = [
        DraftSection(
            heading="A",
            claims=[DraftClaim(text="2. für Personen unter 18 Jahren gilt 1 mSv.", evidence_ids=["e1"])],
        ),
        DraftSection(heading="B", claims=[DraftClaim(text="- Ausnahmen sind möglich.", evidence_ids=["e1"])]),
    ]
    rendered = render_report(sections, {"e1"})
    assert "\n\n2\\. für Personen unter 18 Jahren gilt 1 mSv [1].\n\n" in rendered.markdown + "\n\n"
    assert rendered.markdown.endswith("\\- Ausnahmen sind möglich [1].")
    assert rendered.claims[0].text == "2. für Personen unter 18 Jahren gilt 1 mSv."
