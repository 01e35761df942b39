"""One source number per quoted place (issue 30): evidence ids that quote the same text at the same place
(two tasks, or two search rounds, that extracted the same sentences) are one source with one [n], in the
Markdown, the claims, the sources, the evidence list and the DOCX export."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.research.evidence.citations import DraftClaim, DraftSection, render_report, same_source
from rabbithole.research.evidence.support import content_tokens
from rabbithole.research.export.docx import render_docx
from rabbithole.research.models import Evidence
from rabbithole.research.report import assembly
from rabbithole.research.synthesis.attribution import build_result

PAGE = (
    "Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20 Millisievert im "
    "Kalenderjahr. Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven "
    "Dosis 1 Millisievert im Kalenderjahr."
)
ADULTS = PAGE[: PAGE.index(" Für")]
MINORS = PAGE[PAGE.index("Für beruflich exponierte Personen unter") :]


def evidence(evidence_id: str, quote: str, **extra: Any) -> Evidence:
    start = PAGE.find(quote)
    fields: dict[str, Any] = {
        "id": evidence_id,
        "task_id": evidence_id.split("-")[0],
        "chunk_id": "c1",
        "collection": "sample",
        "document": "StrlSchG.pdf",
        "page": 64,
        "section": "§ 78",
        "quote": quote,
        "start": max(start, 0),
        "end": max(start, 0) + len(quote),
        "fact": quote,
    }
    fields.update(extra)
    return Evidence.model_validate(fields)


def fake_embed(texts: Sequence[str]) -> FloatArray:
    """A deterministic hashed bag of content words, L2-normalised (no model)."""
    rows = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in content_tokens(text):
            rows[i, int(hashlib.sha1(token.encode()).hexdigest(), 16) % 64] += 1.0
    return l2_normalize(rows)


def claim(text: str, *ids: str) -> DraftClaim:
    return DraftClaim(text=text, evidence_ids=list(ids))


def test_the_same_place_or_the_same_quote_on_a_page_is_one_source() -> None:
    items = [
        evidence("t1-e1", ADULTS),
        evidence("t2-e4", ADULTS),  # the same sentences again, from another task
        evidence("t2-e5", MINORS),
        # the same words at other offsets of the page (the chunk's text, whitespace as the PDF had it)
        evidence("t3-e1", MINORS.replace(" unter ", "  unter\n"), start=500, end=600),
        evidence("t3-e2", MINORS, page=65),  # another page: another source
        evidence("w1", ADULTS, collection="web", document="example.org", url="https://example.org/a"),
        evidence("w2", ADULTS, collection="web", document="example.org", url="https://example.org/b"),
    ]
    assert same_source(items) == {
        "t1-e1": "t1-e1",
        "t2-e4": "t1-e1",
        "t2-e5": "t2-e5",
        "t3-e1": "t2-e5",
        "t3-e2": "t3-e2",
        "w1": "w1",
        "w2": "w2",
    }


def test_ids_of_one_source_share_its_number_and_a_claim_cites_it_once() -> None:
    same = {"t1-e1": "t1-e1", "t2-e4": "t1-e1", "t2-e5": "t2-e5"}
    report = render_report(
        [
            DraftSection(
                heading="Grenzwerte",
                claims=[
                    claim("Erwachsene: 20 Millisievert.", "t1-e1"),
                    claim("Im Kalenderjahr gelten 20 Millisievert.", "t2-e4"),
                    claim("Beide Grenzwerte gelten im Kalenderjahr.", "t2-e4", "t2-e5", "t1-e1"),
                ],
            )
        ],
        set(same),
        same=same,
    )
    assert report.markdown == (
        "## Grenzwerte\n\nErwachsene: 20 Millisievert [1]. Im Kalenderjahr gelten 20 Millisievert [1]. "
        "Beide Grenzwerte gelten im Kalenderjahr [1][2]."
    )
    assert report.order == ["t1-e1", "t2-e5"]
    assert [(c.numbers, c.evidence_ids) for c in report.claims] == [
        ([1], ["t1-e1"]),
        ([1], ["t2-e4"]),
        ([1, 2], ["t2-e4", "t2-e5"]),
    ]
    assert [report.number(i) for i in ("t1-e1", "t2-e4", "t2-e5", "t9-e9")] == [1, 1, 2, None]


def test_a_run_whose_tasks_quote_the_same_sentences_cites_them_as_one_source() -> None:
    items = [evidence("t1-e1", ADULTS), evidence("t2-e4", ADULTS), evidence("t2-e5", MINORS)]
    state = {
        "language": "de",
        "question": "Welche Grenzwerte gelten für beruflich exponierte Personen?",
        "title": "Grenzwerte",
        "sections": [
            DraftSection(
                heading="Erwachsene",
                claims=[
                    claim(
                        "Für beruflich exponierte Personen beträgt der Grenzwert 20 Millisievert im "
                        "Kalenderjahr.",
                        "t1-e1",
                    )
                ],
            ),
            DraftSection(
                heading="Jugendliche",
                claims=[
                    claim("Die Behörde prüft Anzeigen binnen vier Wochen.", "t2-e4"),  # barely supported
                    claim(
                        "Für Personen unter 18 Jahren gilt 1 Millisievert im Kalenderjahr.", "t2-e5", "t2-e4"
                    ),
                ],
            ),
        ],
        "task_results": [],
    }
    result = build_result(run_id="r1", state=state, evidence=items, embed=fake_embed, support_threshold=0.35)
    assert [(s.n, s.evidence_id, s.quote) for s in result.sources] == [
        (1, "t1-e1", ADULTS),
        (2, "t2-e5", MINORS),
    ]
    assert [c.citations for c in result.claims] == [[1], [1], [1, 2]]  # as the Markdown shows them
    assert result.claims[1].flagged == [1]
    # the source's support is its weakest citation, through either id
    support = result.sources[0].support
    assert support is not None and support.flagged
    assert result.sources[1].support is not None and not result.sources[1].support.flagged
    assert {e.id: e.source for e in result.evidence} == {"t1-e1": 1, "t2-e4": 1, "t2-e5": 2}
    assert result.citation_stats.citations == 4
    markdown = result.report_markdown
    assert "[2]" in markdown and "[3]" not in markdown
    assert markdown.count(ADULTS) == 1  # one entry in the sources list
    assert "binnen vier Wochen [1]." in markdown
    docx = "\n".join(p.text for p in render_docx(result).paragraphs)
    assert docx.count(ADULTS) == 1 and "[3]" not in docx
    assert "1 Millisievert im Kalenderjahr [1][2]." in docx


def test_report_sections_that_quote_the_same_sentences_share_one_source() -> None:
    """Report mode numbers its sources by the same rule: the same quote on the same page, at the offsets
    of another chunk, is the source another section found first."""
    first = [evidence("s1-p0-d0-b1-e1", ADULTS), evidence("s1-p0-d0-b1-e2", MINORS)]
    again = evidence("s2-p0-d0-b1-e1", ADULTS.replace(" der ", "\n der ", 1), start=900, end=1010)
    mapping, kept = assembly.canonical_ids([first, [again]])
    assert mapping[again.id] == "s1-p0-d0-b1-e1"
    assert [e.id for e in kept] == ["s1-p0-d0-b1-e1", "s1-p0-d0-b1-e2"]
    assert [e.id for e in assembly.unique_evidence([*first, again])] == [e.id for e in kept]
