"""On the ingested sample knowledge base: the German thesaurus brings the section a colloquial question asks
about into the first hits, and `trace` follows a reference that stands in another chunk of a hit's section."""

from __future__ import annotations

from fixtures.sample_index import SAMPLE_COLLECTION
from rabbithole.references.expansion import ExpansionLimits
from rabbithole.references.tracing import ReferenceEngine
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


def engine(services: Services, seed_section_chunks: int) -> ReferenceEngine:
    settings = services.settings.references
    return ReferenceEngine(
        SAMPLE_COLLECTION,
        searcher=services.searcher,
        catalog=services.catalog,
        vectors=services.store.open(SAMPLE_COLLECTION),
        registry=services.registry(SAMPLE_COLLECTION),
        settings=settings,
        limits=ExpansionLimits.from_settings(settings, seed_section_chunks=seed_section_chunks),
    )


def test_trace_follows_a_reference_from_another_chunk_of_a_hits_section(sample_index: Services) -> None:
    assert sample_index.settings.references.seed_section_chunks == 2  # the default
    traced = engine(sample_index, 2).trace(REPOSITORY_DOSES)
    reached = [p for p in traced.passages if (p.chunk.document, p.chunk.section) == ("StrlSchV.pdf", "§ 104")]
    assert reached and reached[0].depth == 1
    chain = traced.result.chain(reached[0].id)
    source = chain[0]
    assert (source.chunk.document, source.chunk.section, source.depth) == ("EndlSiAnfV.pdf", "§ 17", 0)
    assert reached[0].via is not None and "§ 104 Absatz 1" in reached[0].via.mention
    assert "§ 104" in source.chunk.text
    # the chunk the reference stands in is not one of the search hits: the seed section's scan added it
    hits = sample_index.searcher.search(REPOSITORY_DOSES, SAMPLE_COLLECTION)
    assert source.id not in {h.chunk.id for h in hits} and source.search_score is None
    assert traced.result.stats.companions >= 1

    without = engine(sample_index, 0).trace(REPOSITORY_DOSES)
    assert ("StrlSchV.pdf", "§ 104") not in {(p.chunk.document, p.chunk.section) for p in without.passages}
