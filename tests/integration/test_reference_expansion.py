"""Reference expansion on the ingested sample knowledge base: chains across laws (benchmarks/data/
reference_chains.yaml), depth, budget, per-document limit, gate, provenance, store-filtered section lookup."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from fixtures.sample_index import SAMPLE_COLLECTION
from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import SearchHit
from rabbithole.references.allocation import distinct_sections, within_floor
from rabbithole.references.expansion import ExpansionLimits, ExpansionResult, TracedPassage
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference
from rabbithole.references.resolver import Citing, Unresolved
from rabbithole.references.tracing import ReferenceEngine
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.services import Services

CHAINS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "reference_chains.yaml"
QUESTIONS: list[dict[str, Any]] = yaml.safe_load(CHAINS.read_text(encoding="utf-8"))["questions"]
TWO_HOP = [q for q in QUESTIONS if max(g["hop"] for g in q["gold"]) == 2]


@pytest.fixture(scope="module")
def engine(sample_index: Services) -> ReferenceEngine:
    return sample_index.reference_engine(SAMPLE_COLLECTION)


def new_engine(
    services: Services, settings: ReferenceSettings | None = None, **options: Any
) -> ReferenceEngine:
    """A reference engine over the sample with other settings, limits or detector than the shared one."""
    return ReferenceEngine(
        SAMPLE_COLLECTION,
        searcher=services.searcher,
        catalog=services.catalog,
        vectors=services.store.open(SAMPLE_COLLECTION),
        registry=services.registry(SAMPLE_COLLECTION),
        settings=settings or services.settings.references,
        **options,
    )


def from_section(
    engine: ReferenceEngine, document: str, section: str, question: str, depth: int, **limits: Any
) -> ExpansionResult:
    """Expand from all chunks of one section as seeds, ranked by relevance to ``question``."""
    vector = engine.searcher.embed_query(question)
    relevance = engine.passages.relevance(vector)
    chunks = engine.passages.section_passages(document, section)
    assert chunks, f"{document} {section} has no chunks"
    scores = relevance(chunks)
    seeds = [TracedPassage(c, 0, scores.get(c.id)) for c in chunks]
    expander = engine.expander
    if limits:
        from dataclasses import replace

        expander = type(expander)(expander.detect, expander.resolve, expander.passages,
                                  replace(expander.limits, **limits))  # fmt: skip
    return expander.expand(seeds, relevance, max_depth=depth)


def sections(result: ExpansionResult) -> set[tuple[str, str | None]]:
    return {(p.chunk.document, p.chunk.section) for p in result.passages}


def flat(text: str) -> str:
    return " ".join(text.split())


def test_section_lookup_is_filtered_by_document_and_section(
    engine: ReferenceEngine, sample_index: Services
) -> None:
    found = engine.passages.section_passages("StrlSchG.pdf", "§ 80")
    expected = [
        c for c in sample_index.catalog.chunks(SAMPLE_COLLECTION, "StrlSchG.pdf") if c.section == "§ 80"
    ]
    assert [c.id for c in found] == [c.id for c in expected] and found
    # the vector store's `where` on document and section finds the same chunks
    assert sorted(engine.passages.store_section_ids("StrlSchG.pdf", "§ 80")) == sorted(c.id for c in found)
    assert sorted(engine.passages.store_section_ids("AtG.pdf", "§§ 50 bis 52")) == sorted(
        c.id for c in engine.passages.section_passages("AtG.pdf", "§§ 50 bis 52")
    )
    assert engine.passages.section_passages("StrlSchG.pdf", "§ 9999") == []
    assert "Anlage 8" in engine.passages.section_labels("StrlSchG.pdf")


def test_strlschv_52_reaches_strlschg_80(engine: ReferenceEngine) -> None:
    question = QUESTIONS[0]["question"]
    result = from_section(engine, "StrlSchV.pdf", "§ 52", question, depth=1)
    reached = [p for p in result.passages if (p.chunk.document, p.chunk.section) == ("StrlSchG.pdf", "§ 80")]
    assert reached, sections(result)
    via = reached[0].via
    assert via is not None and reached[0].depth == 1
    assert flat(via.mention) == "§ 80 Absatz 1 und 2 des Strahlenschutzgesetzes"
    source = result.by_id()[via.source_id]
    assert (source.chunk.document, source.chunk.section, source.depth) == ("StrlSchV.pdf", "§ 52", 0)
    assert flat(via.mention) in flat(source.chunk.text)


def test_atvfv_1_reaches_atg_7(engine: ReferenceEngine) -> None:
    result = from_section(engine, "AtVfV.pdf", "§ 1", QUESTIONS[1]["question"], depth=1)
    reached = [p for p in result.passages if (p.chunk.document, p.chunk.section) == ("AtG.pdf", "§ 7")]
    assert reached and all(p.depth == 1 for p in reached)
    assert {flat(p.via.mention) for p in reached if p.via} == {"§ 7 Abs. 1 und 5 des Atomgesetzes"}


def test_two_hops_across_three_laws(engine: ReferenceEngine) -> None:
    """c05: EndlagerVlV § 2 -> EntsorgÜG § 1 -> AtG § 21b."""
    question = next(q for q in QUESTIONS if q["id"] == "c05")["question"]
    one = from_section(engine, "EndlagerVlV.pdf", "§ 2", question, depth=1)
    assert ("EntsorgÜG.pdf", "§ 1") in sections(one) and ("AtG.pdf", "§ 21b") not in sections(one)
    two = from_section(engine, "EndlagerVlV.pdf", "§ 2", question, depth=2)
    target = next(p for p in two.passages if (p.chunk.document, p.chunk.section) == ("AtG.pdf", "§ 21b"))
    chain = two.chain(target.id)
    assert [(p.chunk.document, p.chunk.section, p.depth) for p in chain] == [
        ("EndlagerVlV.pdf", "§ 2", 0),
        ("EntsorgÜG.pdf", "§ 1", 1),
        ("AtG.pdf", "§ 21b", 2),
    ]
    assert chain[2].via is not None and flat(chain[2].via.mention).endswith("des Atomgesetzes")
    assert chain[1].via is not None and flat(chain[1].via.mention) == "§ 1 des Entsorgungsübergangsgesetzes"


@pytest.mark.parametrize("question", TWO_HOP, ids=[q["id"] for q in TWO_HOP])
def test_two_hop_chains_of_the_dev_set(engine: ReferenceEngine, question: dict[str, Any]) -> None:
    """From the gold seed section, depth 2 reaches every gold section, each through a reference."""
    seed = question["seed"]
    result = from_section(engine, seed["document"], seed["section"], question["question"], depth=2)
    reached = sections(result)
    missing = [g for g in question["gold"] if (g["document"], g["section"]) not in reached]
    assert not missing
    assert result.tokens <= result.budget
    for passage in result.passages:
        assert passage.depth == len(result.chain(passage.id)) - 1


def test_depth_zero_is_plain_retrieval(engine: ReferenceEngine, sample_index: Services) -> None:
    question = QUESTIONS[1]["question"]
    traced = engine.trace(question, depth=0, k=6)
    hits = sample_index.searcher.search(question, SAMPLE_COLLECTION, k=6)
    assert [p.id for p in traced.passages] == [h.chunk.id for h in hits]
    assert all(p.depth == 0 and p.via is None for p in traced.passages)


def test_trace_follows_references_within_the_budget(engine: ReferenceEngine) -> None:
    question = QUESTIONS[0]["question"]
    plain = engine.trace(question, depth=0)
    traced = engine.trace(question, depth=2)
    ids = [p.id for p in traced.passages]
    assert ids[: len(plain.passages)] == [p.id for p in plain.passages]
    assert len(ids) == len(set(ids)) > len(plain.passages)
    assert traced.result.tokens <= traced.result.budget == engine.expander.limits.token_budget
    assert traced.result.tokens == sum(p.chunk.token_count for p in traced.passages)
    position = {pid: i for i, pid in enumerate(ids)}
    seed_sections = {(p.chunk.document, p.chunk.section) for p in plain.passages}
    later = traced.passages[len(plain.passages) :]
    for i, p in enumerate(later):
        assert p.relevance is not None and -1.0 <= p.relevance <= 1.0
        if p.via is None:  # another chunk of a hit's section, right before what was reached through it
            assert p.depth == 0 and p.search_score is None
            assert (p.chunk.document, p.chunk.section) in seed_sections
            following = later[i + 1]
            assert following.via is not None and following.via.source_id == p.id
            continue
        assert 1 <= p.depth <= 2
        source = traced.result.by_id()[p.via.source_id]
        assert source.depth == p.depth - 1 and position[source.id] < position[p.id]
    reached = [p.depth for p in later if p.via is not None]
    assert reached == sorted(reached)
    assert traced.result.stats.companions == sum(1 for p in later if p.via is None)
    assert set(traced.timings) == {"embed", "search", "expand", "total"}


def test_small_budget_is_respected(sample_index: Services) -> None:
    engine = new_engine(sample_index, limits=ExpansionLimits(token_budget=1500))
    traced = engine.trace(QUESTIONS[0]["question"], depth=3, k=3)
    seeds = sum(p.chunk.token_count for p in traced.passages if p.depth == 0)
    assert traced.result.tokens <= max(1500, seeds)
    assert traced.result.stats.over_budget > 0


def test_trace_seeds_take_at_most_their_share_of_the_budget(sample_index: Services) -> None:
    question = QUESTIONS[0]["question"]
    assert sample_index.settings.references.seeds == 25  # the default; the seed floor is tested below
    settings = sample_index.settings.references.model_copy(update={"seed_floor": 0.0})
    found = sample_index.searcher.search(question, SAMPLE_COLLECTION, k=settings.seeds)
    assert len(found) == settings.seeds and settings.distinct_seed_sections
    hits = distinct_sections(found)  # the first hit of each section
    assert len({(h.chunk.document, h.chunk.section) for h in hits}) == len(hits)
    for budget in (12_000, 2_000, 100):
        limits = ExpansionLimits.from_settings(settings, token_budget=budget)
        engine = new_engine(sample_index, settings, limits=limits)
        seeds = [p for p in engine.trace(question, depth=0).passages]
        allowance = settings.seed_share * budget
        assert [p.id for p in seeds] == [h.chunk.id for h in hits[: len(seeds)]]  # the first hits, in order
        assert len(seeds) == 1 or sum(p.chunk.token_count for p in seeds) <= allowance
        if len(seeds) < len(hits):  # the next hit would not have fit
            assert sum(h.chunk.token_count for h in hits[: len(seeds) + 1]) > allowance
    small = new_engine(
        sample_index, settings, limits=ExpansionLimits.from_settings(settings, token_budget=100)
    )
    assert len(small.trace(question, depth=0).passages) == 1  # at least one seed
    assert len(small.trace(question, depth=0, k=6).passages) == 6  # a k named by the caller is kept


def test_trace_seeds_are_the_hits_within_the_seed_floor(sample_index: Services) -> None:
    question = next(q for q in QUESTIONS if q["id"] == "c19")["question"]  # one hit stands out
    settings = sample_index.settings.references.model_copy(update={"seeds": 25, "seed_floor": 0.45})
    hits = distinct_sections(sample_index.searcher.search(question, SAMPLE_COLLECTION, k=25))
    kept = within_floor(hits, 0.45)
    assert 1 <= len(kept) < len(hits)  # the floor drops the hits far below the first one
    seeds = [p for p in new_engine(sample_index, settings).trace(question, depth=0).passages]
    assert [p.id for p in seeds] == [h.chunk.id for h in kept][: len(seeds)]  # within the seed share
    assert all(p.search_score is not None and p.search_score >= 0.45 * hits[0].score for p in seeds[1:])
    unfloored = settings.model_copy(update={"seed_floor": 0.0})
    assert len(new_engine(sample_index, unfloored).trace(question, depth=0).passages) > len(seeds)


def test_trace_allocates_its_passages_and_expand_follows_by_relevance_alone(sample_index: Services) -> None:
    question = QUESTIONS[0]["question"]
    compact = sample_index.settings.references.model_copy(update={"max_reached": 7})  # the compact context
    engine = new_engine(sample_index, compact)
    cap = engine.settings.max_reached
    assert cap == 7 and engine.settings.source_weight == 1.0
    traced = engine.trace(question)
    assert 0 < sum(1 for p in traced.passages if p.via is not None) <= cap
    vector = engine.searcher.embed_views(question, SAMPLE_COLLECTION)
    hits = engine.searcher.search(question, SAMPLE_COLLECTION, k=engine.settings.seeds, query_vector=vector)
    plain = engine.expand(hits, vector, query=question)  # the research dig's call: no cap, no seed weight
    assert sum(1 for p in plain.passages if p.via is not None) > cap
    allocated = engine.expand(hits, vector, query=question, allocate=True)
    assert sum(1 for p in allocated.passages if p.via is not None) == cap
    assert allocated.stats.over_budget > 0


def test_per_document_limit(engine: ReferenceEngine) -> None:
    question = next(q for q in QUESTIONS if q["id"] == "c16")["question"]
    result = from_section(engine, "StrlSchG.pdf", "§ 80", question, depth=3, per_document_limit=2)
    reached = Counter(p.chunk.document for p in result.passages if p.depth > 0)
    assert reached and max(reached.values()) <= 2
    assert result.stats.over_document_limit > 0


def test_gate_is_honoured(engine: ReferenceEngine) -> None:
    asked: list[tuple[str, str]] = []

    def same_document_only(reference: Reference, source: TracedPassage) -> bool:
        asked.append((reference.mention, source.id))
        return reference.same_document

    question = QUESTIONS[0]["question"]
    traced = engine.trace(question, depth=2, gate=same_document_only)
    assert asked and traced.result.stats.gated > 0
    by_id = traced.result.by_id()
    for p in traced.passages:
        if p.via is not None:
            assert p.chunk.document == by_id[p.via.source_id].chunk.document
    # the gate is asked about references of passages in the result, or of other chunks of a hit's section
    # (those enter the result only when one of their references is followed)
    hits = {(p.chunk.document, p.chunk.section) for p in traced.passages if p.search_score is not None}
    outside = {source for _, source in asked if source not in by_id}
    chunks = engine.searcher.source.get_chunks(SAMPLE_COLLECTION, list(outside))
    assert set(chunks) == outside
    assert all((c.document, c.section) in hits for c in chunks.values())


def test_unresolved_references_are_reported(engine: ReferenceEngine) -> None:
    result = from_section(engine, "StandAG.pdf", "§ 12", "Bergrecht im Standortauswahlverfahren", depth=1)
    unknown = [u for u in result.unresolved if u.reason is Unresolved.UNKNOWN_DOCUMENT]
    assert any(u.target == "Bundesberggesetz" for u in unknown)
    assert all(u.source_document == "StandAG.pdf" for u in result.unresolved)


def test_trace_json_shape(engine: ReferenceEngine) -> None:
    data = engine.trace(QUESTIONS[0]["question"], depth=1, k=3).to_dict()
    assert set(data) == {"query", "passages", "unresolved"}
    keys = {"id", "document", "page", "section", "text", "depth", "via", "score"}
    assert all(set(p) == keys for p in data["passages"])
    assert any(p["via"] is not None and set(p["via"]) == {"from", "mention"} for p in data["passages"])
    for u in data["unresolved"]:
        assert set(u) == {"from", "document", "mention", "type", "target", "section", "reason"}


def seeds_of(engine: ReferenceEngine, document: str, section: str, contains: str) -> list[SearchHit]:
    """The chunk of a section holding ``contains``, as a search hit (the seed of an expansion)."""
    chunk = next(c for c in engine.passages.section_passages(document, section) if contains in flat(c.text))
    return [SearchHit(chunk, 1.0)]


def test_annex_references_are_followed(engine: ReferenceEngine) -> None:
    question = "Welche Ereignisse sind nach den Meldekriterien meldepflichtig?"
    hits = seeds_of(engine, "AtSMV.pdf", "§ 6", "in den Anlagen 1 bis 7")
    result = engine.expand(hits, engine.searcher.embed_query(question), depth=1)
    reached = {p.chunk.section for p in result.passages if p.depth == 1 and p.chunk.document == "AtSMV.pdf"}
    assert {"Anlage 1", "Anlage 7"} <= reached
    via = next(p.via for p in result.passages if p.chunk.section == "Anlage 7")
    assert via is not None and flat(via.mention) == "Anlagen 1 bis 7"


def test_whole_document_mentions_are_followed_by_a_scoped_search(engine: ReferenceEngine) -> None:
    question = (
        "Welche Aufwendungen für genehmigungsbedürftige Anlagenteile zählen zu den Kosten der Errichtung?"
    )
    hits = seeds_of(engine, "AtKostV.pdf", "§ 3", "nach dem Atomgesetz genehmigungsbedürftigen")
    vector = engine.searcher.embed_query(question)
    followed = engine.expand(hits, vector, depth=1, query=question)
    via_mention = [
        p for p in followed.passages if p.via is not None and flat(p.via.mention) == "dem Atomgesetz"
    ]
    assert 1 <= len(via_mention) <= engine.expander.limits.section_chunks
    assert all(p.chunk.document == "AtG.pdf" and p.depth == 1 for p in via_mention)
    scoped = engine.searcher.search(question, SAMPLE_COLLECTION, k=4, query_vector=vector,
                                    filters=SearchFilters.create(documents="AtG.pdf"))  # fmt: skip
    assert {p.id for p in via_mention} <= {h.chunk.id for h in scoped}
    # without the query text they are counted, not followed
    counted = engine.expand(hits, vector, depth=1)
    assert not any(p.via is not None and flat(p.via.mention) == "dem Atomgesetz" for p in counted.passages)
    assert counted.stats.document_level >= 1


def test_divisions_and_ranges_reach_the_sections_inside(engine: ReferenceEngine) -> None:
    resolver = engine.resolver
    (division,) = detect_references("nach Teil 4 Kapitel 2 des Strahlenschutzgesetzes")
    target = resolver.resolve(division, Citing("AtG.pdf"))
    assert target.labels[:3] == ("§ 121", "§ 122", "§ 123") and "§ 132" in target.labels
    ranged = detect_references("die §§ 7 bis 9 des Atomgesetzes")
    labels = [label for ref in ranged for label in resolver.resolve(ref, Citing("StrlSchG.pdf")).labels]
    assert labels[:6] == ["§ 7", "§ 7a", "§ 7b", "§ 7c", "§ 7d", "§ 7e"] and "§ 9g" in labels
    old = detect_references("nach § 5 der Strahlenschutzverordnung vom 20. Juli 2001 (BGBl. I S. 1714)")
    assert [resolver.resolve(r, Citing("AtG.pdf")).reason for r in old] == [Unresolved.HISTORICAL_VERSION]
