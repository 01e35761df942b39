"""Evidence from an extraction answer: quotes cut from the page text by offsets, whatever the model chose."""

from __future__ import annotations

from types import SimpleNamespace

from rabbithole.core.config import ResearchSettings
from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.research.dig.evidence import evidence_from_findings
from rabbithole.research.evidence.numbering import number_passages
from rabbithole.research.models import Passage, QueryAnchor

PAGE1 = "§ 78 Grenzwerte\n(1) Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr."
PAGE2 = (
    "(2) Für die Augenlinse gilt ein Grenzwert von 20 Millisievert.\n(3) Die Behörde kann Ausnahmen zulassen."
)
PAGES = [PageText(1, PAGE1, 0), PageText(2, PAGE2, len(PAGE1) + len(ParsedDocument.PAGE_SEPARATOR))]
TEXT = ParsedDocument.PAGE_SEPARATOR.join(p.text for p in PAGES)
ANCHOR = QueryAnchor(
    question="Welche Grenzwerte gelten?", language="de", key_entities=["Grenzwert", "Augenlinse"]
)


def passage(depth: int = 0) -> Passage:
    return Passage(
        chunk_id="c1",
        collection="sample",
        document="StrlSchG.pdf",
        page=1,
        page_end=2,
        section="§ 78",
        heading="Grenzwerte",
        start=0,
        end=len(TEXT),
        text=TEXT,
        depth=depth,
        relevance=0.6,
        search_score=0.9,
    )


def finding(sentences: list[int], fact: str = "Grenzwerte", answers: bool = True) -> SimpleNamespace:
    return SimpleNamespace(fact=fact, sentences=sentences, answers=answers)


def extract(*findings: SimpleNamespace, depth: int = 0) -> list:  # type: ignore[type-arg]
    p = passage(depth)
    table = number_passages([p])
    return evidence_from_findings(
        list(findings),
        table,
        [p],
        {("sample", "StrlSchG.pdf"): PAGES},
        task_id="t2",
        id_prefix="t2-b1",
        anchor=ANCHOR,
        settings=ResearchSettings(),
    ).evidence


def test_every_quote_is_the_page_text_at_its_offsets() -> None:
    table = number_passages([passage()])
    assert len(table) >= 4
    evidence = extract(*(finding([s.number]) for s in table))
    assert evidence
    for e in evidence:
        page = {p.number: p.text for p in PAGES}[e.page]
        assert page[e.start : e.end] == e.quote
    assert [e.id for e in evidence] == [f"t2-b1-e{i}" for i in range(1, len(evidence) + 1)]
    assert all(e.task_id == "t2" for e in evidence)


def test_a_run_across_pages_gives_one_quote_per_page() -> None:
    table = number_passages([passage()])
    evidence = extract(finding([s.number for s in table]))
    assert sorted({e.page for e in evidence}) == [1, 2]
    assert all(e.section == "§ 78" and e.fact == "Grenzwerte" for e in evidence)


def test_unknown_numbers_and_empty_facts_give_nothing() -> None:
    assert extract(finding([999])) == []
    assert extract(finding([1], fact="   ")) == []


def test_tiers_follow_depth_and_answers() -> None:
    table = number_passages([passage()])
    seed = extract(finding([table[1].number]))[0]
    related = extract(finding([table[1].number], answers=False), depth=2)[0]
    assert seed.tier_score > related.tier_score
    assert related.tier != "primary" and not related.answers
    assert seed.entity_match > 0
