"""Which search found a passage: the query of each seed, named by the first step of every chain that
starts at it, and where a passage shown to the user lies (to open its page highlighted)."""

from __future__ import annotations

from rabbithole.core.models import Chunk, SearchHit
from rabbithole.references.grammar import detect_references
from rabbithole.references.provenance import ExpansionResult, TracedPassage, Via
from rabbithole.references.resolver import ResolvedReference
from rabbithole.research.passages import found_by, from_expansion, from_hit, shown_passage


def chunk(name: str, page: int = 1, page_end: int = 1) -> Chunk:
    return Chunk(
        id=name,
        collection="laws",
        document=f"{name}.pdf",
        ordinal=0,
        text=f"Text of {name} nach § 3 des Betagesetzes",
        start=100 * page,
        end=100 * page + 40,
        page=page,
        page_end=page_end,
        section="§ 1",
        heading="",
    )


def test_each_passage_is_found_by_the_query_whose_hit_on_it_scored_best() -> None:
    a, b = chunk("a"), chunk("b")
    found = found_by(
        ["Gebühren", "Kosten"],
        [[SearchHit(a, 0.4), SearchHit(b, 0.9)], [SearchHit(a, 0.7), SearchHit(b, 0.9)]],
    )
    assert found == {"a": "Kosten", "b": "Gebühren"}  # b: equal scores, the first query keeps it


def test_a_seed_names_its_query_and_every_chain_from_it_starts_with_it() -> None:
    seed, reached = chunk("seed"), chunk("reached", page=4)
    mention = detect_references(seed.text)[0]
    via = Via(seed.id, "§ 3 des Betagesetzes", mention, ResolvedReference(reference=mention))
    result = ExpansionResult(
        passages=[TracedPassage(seed, 0, 0.8, search_score=0.9), TracedPassage(reached, 1, 0.5, via=via)],
        unresolved=[],
        tokens=0,
        budget=1000,
    )
    seed_out, reached_out = from_expansion(result, {"seed": "Gebühren"})
    assert seed_out.query == "Gebühren"
    assert [(s.document, s.query) for s in seed_out.chain] == [("seed.pdf", "Gebühren")]
    assert reached_out.query is None
    assert [(s.document, s.page, s.mention, s.query) for s in reached_out.chain] == [
        ("seed.pdf", 1, "§ 3 des Betagesetzes", "Gebühren"),
        ("reached.pdf", 4, None, None),
    ]
    # without the queries (a run checkpointed before they were kept): chains as before
    plain_seed, plain_reached = from_expansion(result)
    assert plain_seed.chain == [] and plain_reached.chain[0].query is None
    assert from_hit(SearchHit(seed, 0.9), "Kosten").chain[0].query == "Kosten"
    assert from_hit(SearchHit(seed, 0.9)).chain == []


def test_a_shown_passage_says_where_it_lies() -> None:
    shown = shown_passage(SearchHit(chunk("a", page=2, page_end=3), 0.5))
    assert (shown.collection, shown.document, shown.page, shown.page_end) == ("laws", "a.pdf", 2, 3)
    assert (shown.start, shown.end) == (200, 240)
