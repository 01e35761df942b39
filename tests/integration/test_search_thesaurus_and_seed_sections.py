"""On the ingested sample knowledge base: the German thesaurus brings the section a colloquial question asks
about into the first hits, and `trace` follows a reference that stands in another chunk of a hit's section."""

from __future__ import annotations

from fixtures.sample_index import SAMPLE_COLLECTION
from rabbithole.references.expansion import Expander, ExpansionLimits, ExpansionResult, TracedPassage
from rabbithole.retrieval.hybrid import HybridSearcher
from rabbithole.services import Services

ANTARCTICA = "Darf Atommüll in die Antarktis gebracht werden?"  # AtAV § 5: "südlich des 60. Grades ..."
REPOSITORY_DOSES = (
    "Welche Dosiswerte sind bei der Planung von Maßnahmen gegen Auslegungsstörfälle im Betrieb eines "
    "Endlagers für hochradioaktive Abfälle zugrunde zu legen?"
)  # EndlSiAnfV § 17 (3) cites "§ 104 Absatz 1 Satz 1 und 2 der Strahlenschutzverordnung"


def sections(searcher: HybridSearcher, query: str) -> list[tuple[str, str | None]]:
    return [(h.chunk.document, h.chunk.section) for h in searcher.search(query, SAMPLE_COLLECTION, k=5)]


def test_a_colloquial_german_question_finds_the_section_in_legal_terms(sample_index: Services) -> None:
    searcher = sample_index.searcher
    assert ("AtAV.pdf", "§ 5") in sections(searcher, ANTARCTICA)
    without = HybridSearcher(
        searcher.embedder,
        searcher.store,
        searcher.source,
        bm25=searcher.bm25,
        settings=searcher.settings.model_copy(update={"thesaurus": False}),
    )
    assert ("AtAV.pdf", "§ 5") not in sections(without, ANTARCTICA)


def expand_from_opening_chunk(services: Services, seed_section_chunks: int) -> ExpansionResult:
    """One hop from the opening chunk of EndlSiAnfV § 17 alone (as a search would return it)."""
    engine = services.reference_engine(SAMPLE_COLLECTION)
    opening = engine.passages.section_passages("EndlSiAnfV.pdf", "§ 17")[0]
    assert "§ 104" not in opening.text
    limits = ExpansionLimits.from_settings(
        services.settings.references, seed_section_chunks=seed_section_chunks
    )
    expander = Expander(engine.expander.detect, engine.expander.resolve, engine.passages, limits)
    relevance = engine.passages.relevance(services.searcher.embed_query(REPOSITORY_DOSES))
    return expander.expand([TracedPassage(opening, 0, None, None, 1.0)], relevance, max_depth=1)


def test_a_reference_in_another_chunk_of_a_hits_section_is_followed_through_that_chunk(
    sample_index: Services,
) -> None:
    assert sample_index.settings.references.seed_section_chunks == 0  # off by default (docs/references.md)
    result = expand_from_opening_chunk(sample_index, 4)
    reached = [p for p in result.passages if (p.chunk.document, p.chunk.section) == ("StrlSchV.pdf", "§ 104")]
    assert reached and reached[0].depth == 1 and reached[0].via is not None
    assert "§ 104 Absatz 1" in reached[0].via.mention
    source = result.by_id()[reached[0].via.source_id]
    assert (source.chunk.document, source.chunk.section, source.depth, source.via) == (
        "EndlSiAnfV.pdf",
        "§ 17",
        0,
        None,
    )
    assert "§ 104" in source.chunk.text and result.stats.companions >= 1
    assert [p.id for p in result.chain(reached[0].id)] == [source.id, reached[0].id]

    without = expand_from_opening_chunk(sample_index, 0)
    assert ("StrlSchV.pdf", "§ 104") not in {(p.chunk.document, p.chunk.section) for p in without.passages}
