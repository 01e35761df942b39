"""Reference expansion logic on in-memory fakes: multi-hop, depth, visited set, budget, per-document limit,
relevance filter, gate, provenance, Absatz selection, unresolved references."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import Chunk
from rabbithole.references.expansion import (
    Expander,
    ExpansionLimits,
    GateRequest,
    Relevance,
    TracedPassage,
    absatz_at,
    absatz_chunks,
)
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference
from rabbithole.references.resolver import ReferenceResolver, SectionIndex, Unresolved
from rabbithole.registry import DocumentEntry, DocumentRegistry, Synonym, SynonymKind

REGISTRY = DocumentRegistry(
    "test",
    [
        DocumentEntry("A.pdf", "Alphagesetz", "AlphaG", [Synonym("Alphagesetz", SynonymKind.TITLE)]),
        DocumentEntry("B.pdf", "Betagesetz", "BetaG", [Synonym("Betagesetz", SynonymKind.TITLE)]),
        DocumentEntry("C.pdf", "Gammaverordnung", "GammaV", [Synonym("Gammaverordnung", SynonymKind.TITLE)]),
    ],
)


def chunk(document: str, section: str, ordinal: int, text: str, tokens: int = 100) -> Chunk:
    return Chunk(
        id=f"{document}:{section}:{ordinal}",
        collection="test",
        document=document,
        ordinal=ordinal,
        text=text,
        start=ordinal * 1000,
        end=ordinal * 1000 + len(text),
        page=1,
        page_end=1,
        section=section,
        heading="",
        token_count=tokens,
    )


class FakePassages:
    """Chunks by (document, section); records the lookups."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.sections: dict[tuple[str, str], list[Chunk]] = {}
        for c in chunks:
            assert c.section is not None
            self.sections.setdefault((c.document, c.section), []).append(c)
        self.lookups: list[tuple[str, str]] = []

    def section_passages(self, document: str, section: str) -> list[Chunk]:
        self.lookups.append((document, section))
        return sorted(self.sections.get((document, section), []), key=lambda c: c.ordinal)

    def labels(self) -> dict[str, set[str | None]]:
        out: dict[str, set[str | None]] = {}
        for document, section in self.sections:
            out.setdefault(document, set()).add(section)
        return out


def make(chunks: Sequence[Chunk], **limits: int | float) -> tuple[Expander, FakePassages]:
    passages = FakePassages(chunks)
    resolver = ReferenceResolver(REGISTRY, SectionIndex.from_labels(passages.labels()))
    settings = {"max_depth": 2, "token_budget": 10_000, "min_relevance": 0.0, "min_keep": 0, **limits}
    return Expander(detect_references, resolver.resolve, passages, ExpansionLimits(**settings)), passages  # type: ignore[arg-type]


def relevance(scores: dict[str, float]) -> Relevance:
    def score(chunks: Sequence[Chunk]) -> dict[str, float]:
        return {c.id: scores.get(c.id, 0.5) for c in chunks}

    return score


def seed(c: Chunk, relevance: float = 0.9) -> TracedPassage:
    return TracedPassage(c, 0, relevance, None, 1.0)


A1 = chunk("A.pdf", "§ 1", 0, "(1) Die Pflicht nach § 2 des Betagesetzes gilt entsprechend.")
B2 = chunk("B.pdf", "§ 2", 0, "(1) Es gelten die Werte nach § 3 der Gammaverordnung.")
C3 = chunk("C.pdf", "§ 3", 0, "(1) Die Werte ergeben sich aus § 1 des Alphagesetzes.")  # back to A: a cycle
CHAIN = [A1, B2, C3]


def ids(passages: Sequence[TracedPassage]) -> list[str]:
    return [p.id for p in passages]


def test_depth_zero_is_the_seeds_alone() -> None:
    expander, passages = make(CHAIN)
    result = expander.expand([seed(A1)], relevance({}), max_depth=0)
    assert ids(result.passages) == [A1.id]
    assert passages.lookups == [] and result.stats.scanned == 0
    assert result.tokens == 100


def test_multi_hop_across_documents_with_provenance() -> None:
    expander, _ = make(CHAIN)
    one = expander.expand([seed(A1)], relevance({}), max_depth=1)
    assert ids(one.passages) == [A1.id, B2.id]
    two = expander.expand([seed(A1)], relevance({}), max_depth=2)
    assert ids(two.passages) == [A1.id, B2.id, C3.id]
    reached = two.by_id()
    assert [p.depth for p in two.passages] == [0, 1, 2]
    b_via, c_via = reached[B2.id].via, reached[C3.id].via
    assert b_via is not None and (b_via.source_id, b_via.mention) == (A1.id, "§ 2 des Betagesetzes")
    assert c_via is not None and (c_via.source_id, c_via.mention) == (B2.id, "§ 3 der Gammaverordnung")
    assert c_via.target.document == "C.pdf" and c_via.target.section == "§ 3"
    assert ids(two.chain(C3.id)) == [A1.id, B2.id, C3.id]
    assert two.chain("unknown") == []


def test_visited_set_ends_cycles() -> None:
    expander, _ = make(CHAIN, max_depth=6, skip_present_sections=False)
    result = expander.expand([seed(A1)], relevance({}))
    assert ids(result.passages) == [A1.id, B2.id, C3.id]  # C3 cites A1 again: not added twice
    assert result.stats.visited >= 1
    assert len(set(ids(result.passages))) == len(result.passages)
    skipping, _ = make(CHAIN, max_depth=6)  # the default: A's section is present, so not offered at all
    again = skipping.expand([seed(A1)], relevance({}))
    assert ids(again.passages) == [A1.id, B2.id, C3.id]
    assert (again.stats.candidates, again.stats.visited) == (2, 0)  # B2 and C3; A1 is not offered again


def test_a_cited_section_already_present_adds_only_the_cited_absatz() -> None:
    parts = [
        chunk("B.pdf", "§ 2", 0, "(1) Erstens.\n\n(2) Zweitens."),
        chunk("B.pdf", "§ 2", 1, "(3) Drittens."),
        chunk("B.pdf", "§ 2", 2, "(4) Viertens."),
    ]
    whole = chunk("A.pdf", "§ 1", 0, "(1) Es gilt § 2 des Betagesetzes.")
    absatz = chunk("A.pdf", "§ 1", 1, "(2) Es gilt § 2 Absatz 3 des Betagesetzes.")
    expander, _ = make([whole, absatz, *parts], section_chunks=4)
    # B § 2 is in the result already (its Absatz 4 is a seed): a whole-section reference adds nothing ...
    result = expander.expand([seed(parts[2]), seed(whole)], relevance({}), max_depth=1)
    assert ids(result.passages) == [parts[2].id, whole.id]
    assert result.stats.present == 2  # B § 2's opening and Absatz 3 chunks, not offered again
    # ... and a reference to its Absatz 3 the chunk holding it, without the section's opening chunk
    cited = expander.expand([seed(parts[2]), seed(absatz)], relevance({}), max_depth=1)
    assert ids(cited.passages) == [parts[2].id, absatz.id, parts[1].id]
    revisiting, _ = make([whole, absatz, *parts], section_chunks=4, skip_present_sections=False)
    everything = revisiting.expand([seed(parts[2]), seed(whole)], relevance({}), max_depth=1)
    assert set(ids(everything.passages)) == {whole.id, *(c.id for c in parts)}


def test_reference_settings_default_to_one_chunk_per_cited_section_and_25_seeds() -> None:
    settings = ReferenceSettings()
    limits = ExpansionLimits.from_settings(settings)
    assert (settings.seeds, settings.seed_share, limits.section_chunks, limits.skip_present_sections) == (
        25,
        0.4,
        1,
        True,
    )
    assert (
        ExpansionLimits.from_settings(ReferenceSettings(skip_present_sections=False)).skip_present_sections
        is False
    )


def test_budget_is_spent_on_the_most_relevant_passages() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Nach § 2 des Betagesetzes und § 3 der Gammaverordnung.")
    expander, _ = make([source, B2, C3], token_budget=250)
    result = expander.expand([seed(source)], relevance({B2.id: 0.3, C3.id: 0.8}), max_depth=1)
    assert ids(result.passages) == [source.id, C3.id]
    assert result.tokens == 200 <= result.budget == 250
    assert result.stats.over_budget == 1


def test_budget_is_counted_in_tokens() -> None:
    big = chunk("B.pdf", "§ 2", 0, B2.text, tokens=5000)
    expander, _ = make([A1, big, C3], token_budget=3000)
    result = expander.expand([seed(A1)], relevance({}))
    assert ids(result.passages) == [A1.id]
    assert result.stats.over_budget == 1


def test_per_document_limit() -> None:
    many = [chunk("B.pdf", "§ 2", i, f"Satz ohne Absatzmarke Nummer {i}.") for i in range(5)]
    expander, _ = make([A1, *many], per_document_limit=2, section_chunks=10)
    scores = {c.id: 0.1 * i for i, c in enumerate(many)}
    result = expander.expand([seed(A1)], relevance(scores), max_depth=1)
    assert ids(result.passages) == [A1.id, many[4].id, many[3].id]
    assert result.stats.over_document_limit == 3


def test_section_chunks_caps_a_whole_section() -> None:
    many = [chunk("B.pdf", "§ 2", i, f"Text {i} ohne Marke.") for i in range(6)]
    expander, _ = make([A1, *many], section_chunks=2)
    scores = {c.id: s for c, s in zip(many, (0.2, 0.9, 0.1, 0.8, 0.3, 0.4), strict=True)}
    result = expander.expand([seed(A1)], relevance(scores), max_depth=1)
    assert ids(result.passages) == [A1.id, many[1].id, many[3].id]


def test_relevance_filter_keeps_at_least_min_keep() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Nach § 2 des Betagesetzes und § 3 der Gammaverordnung.")
    scores = {B2.id: 0.05, C3.id: 0.10}
    expander, _ = make([source, B2, C3], min_relevance=0.15, min_keep=0)
    dropped = expander.expand([seed(source)], relevance(scores), max_depth=1)
    assert ids(dropped.passages) == [source.id] and dropped.stats.below_relevance == 2
    expander, _ = make([source, B2, C3], min_relevance=0.15, min_keep=1)
    kept = expander.expand([seed(source)], relevance(scores), max_depth=1)
    assert ids(kept.passages) == [source.id, C3.id]  # the better of the two
    assert kept.passages[1].relevance == pytest.approx(0.10)


def test_gate_decides_per_reference() -> None:
    calls: list[tuple[Reference, TracedPassage]] = []

    def gate(reference: Reference, source: TracedPassage) -> bool:
        calls.append((reference, source))
        return reference.law_normalized != "Gammaverordnung"

    expander, _ = make(CHAIN, max_depth=3)
    result = expander.expand([seed(A1)], relevance({}), gate=gate)
    assert ids(result.passages) == [A1.id, B2.id]
    assert result.stats.gated == 1
    assert [(r.mention, s.id) for r, s in calls] == [
        ("§ 2 des Betagesetzes", A1.id),
        ("§ 3 der Gammaverordnung", B2.id),
    ]


def test_absatz_selects_the_chunks_holding_it() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Es gilt § 2 Absatz 3 des Betagesetzes.")
    parts = [
        chunk("B.pdf", "§ 2", 0, "(1) Erstens.\n\n(2) Zweitens."),
        chunk("B.pdf", "§ 2", 1, "(3) Drittens beginnt hier"),
        chunk("B.pdf", "§ 2", 2, "und geht hier weiter."),
        chunk("B.pdf", "§ 2", 3, "(4) Viertens."),
    ]
    expander, _ = make([source, *parts])
    result = expander.expand([seed(source)], relevance({}), max_depth=1)
    # the chunks holding Absatz 3, and the section's opening chunk
    assert set(ids(result.passages)) == {source.id, parts[0].id, parts[1].id, parts[2].id}
    assert result.stats.candidates == 3


def test_bare_satz_follows_within_the_own_absatz() -> None:
    parts = [
        chunk("A.pdf", "§ 1", 0, "(1) Erstens.\n(2) Zweitens beginnt"),
        chunk("A.pdf", "§ 1", 1, "und verweist auf Satz 1 dieses Absatzes."),
        chunk("A.pdf", "§ 1", 2, "(3) Drittens."),
    ]
    expander, _ = make(parts)
    result = expander.expand([seed(parts[1])], relevance({}), max_depth=1)
    assert ids(result.passages) == [parts[1].id, parts[0].id]
    via = result.passages[1].via
    assert via is not None and via.mention == "Satz 1" and via.target.section == "§ 1"


def test_unresolved_and_whole_document_references_are_reported_not_followed() -> None:
    source = chunk(
        "A.pdf",
        "§ 1",
        0,
        "(1) Nach § 9 des Bundesberggesetzes, § 99 des Betagesetzes, der Richtlinie 2013/59/Euratom "
        "und nach dem Betagesetz.",
    )
    expander, passages = make([source, B2], seed_section_chunks=0)  # no lookup of the seed's own section
    result = expander.expand([seed(source)], relevance({}), max_depth=1)
    assert ids(result.passages) == [source.id]
    reasons = {(u.mention, u.reason) for u in result.unresolved}
    assert reasons == {
        ("§ 9 des Bundesberggesetzes", Unresolved.UNKNOWN_DOCUMENT),
        ("§ 99 des Betagesetzes", Unresolved.SECTION_NOT_FOUND),
        ("Richtlinie 2013/59/Euratom", Unresolved.EXTERNAL),
    }
    assert all(u.source_id == source.id and u.source_document == "A.pdf" for u in result.unresolved)
    unknown = next(u for u in result.unresolved if u.reason is Unresolved.UNKNOWN_DOCUMENT)
    assert (unknown.target, unknown.section) == ("Bundesberggesetz", "9")
    assert result.stats.document_level == 1
    assert passages.lookups == []


def test_breadth_first_most_relevant_first() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Nach § 2 des Betagesetzes und § 3 der Gammaverordnung.")
    d2 = chunk("B.pdf", "§ 5", 0, "(1) Ein Satz ohne Verweis.")
    b2 = chunk("B.pdf", "§ 2", 0, "(1) Siehe § 5.")
    expander, _ = make([source, b2, C3, d2])
    result = expander.expand([seed(source)], relevance({b2.id: 0.2, C3.id: 0.7, d2.id: 0.99}))
    assert ids(result.passages) == [source.id, C3.id, b2.id, d2.id]
    assert [p.depth for p in result.passages] == [0, 1, 1, 2]


def test_seeds_count_towards_the_budget_and_are_always_kept() -> None:
    heavy = chunk("A.pdf", "§ 1", 0, A1.text, tokens=900)
    expander, _ = make([heavy, B2], token_budget=950)
    result = expander.expand([seed(heavy)], relevance({}))
    assert ids(result.passages) == [heavy.id] and result.tokens == 900


def test_absatz_helpers() -> None:
    parts = [
        chunk("B.pdf", "§ 2", 0, "§ 2 Titel\n\n(1) Erstens.\n\n(2) Zweitens"),
        chunk("B.pdf", "§ 2", 1, "geht weiter.\n\n(2a) Zweitens a."),
        chunk("B.pdf", "§ 2", 2, "(3) Drittens."),
    ]
    assert absatz_chunks(parts, {"2"}) == parts[:2]
    assert absatz_chunks(parts, {"2a"}) == parts[1:2]
    assert absatz_chunks(parts, {"9"}) == []
    assert absatz_at(parts, parts[1], 3) == "2"
    assert absatz_at(parts, parts[1], len(parts[1].text)) == "2a"
    assert absatz_at(parts, parts[0], 3) is None


def test_limits_from_settings() -> None:
    settings = ReferenceSettings(max_depth=3, token_budget=5000, per_document_limit=7, min_relevance=0.2)
    limits = ExpansionLimits.from_settings(settings, section_chunks=2)
    assert (limits.max_depth, limits.token_budget, limits.per_document_limit) == (3, 5000, 7)
    assert (limits.min_relevance, limits.min_keep, limits.section_chunks) == (0.2, 5, 2)


# -- whole documents, divisions, ranges ----------------------------------------------------------------------


def test_whole_document_references_are_followed_by_a_scoped_search() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Die Pflichten nach dem Betagesetz und nach diesem Gesetz bleiben.")
    b1, b5 = chunk("B.pdf", "§ 1", 1, "Betagesetz § 1"), chunk("B.pdf", "§ 5", 5, "Betagesetz § 5")
    expander, _ = make([source, b1, b5], section_chunks=1)
    searched: list[str] = []

    def search_document(document: str) -> list[Chunk]:
        searched.append(document)
        return [b5, b1]  # the query's best chunks of that document, best first

    result = expander.expand(
        [seed(source)], relevance({b5.id: 0.8, b1.id: 0.3}), max_depth=1, search_document=search_document
    )
    assert searched == ["B.pdf"]  # not the citing document ("diesem Gesetz")
    assert ids(result.passages) == [source.id, b5.id]
    via = result.by_id()[b5.id].via
    assert via is not None and via.mention == "dem Betagesetz" and via.target.section is None
    assert result.stats.document_level == 2 and result.stats.followed == 1
    # without a search, as before: counted, not followed
    plain = expander.expand([seed(source)], relevance({}), max_depth=1)
    assert ids(plain.passages) == [source.id] and plain.stats.document_level == 2


def test_whole_document_references_go_through_the_batch_gate() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Es gelten das Betagesetz und § 2 der Gammaverordnung.")
    expander, _ = make([source, B2, C3, chunk("C.pdf", "§ 2", 2, "Gamma § 2")])
    asked: list[tuple[str, str | None]] = []

    def batch_gate(depth: int, requests: Sequence[GateRequest]) -> list[int]:
        asked.extend((r.reference.mention, r.target.section) for r in requests)
        return [i for i, r in enumerate(requests) if r.target.section is not None]

    result = expander.expand(
        [seed(source)], relevance({}), max_depth=1, batch_gate=batch_gate, search_document=lambda d: [B2]
    )
    assert asked == [("das Betagesetz", None), ("§ 2 der Gammaverordnung", "§ 2")]
    assert [p.chunk.document for p in result.passages] == ["A.pdf", "C.pdf"]


def test_division_and_range_targets_follow_every_section() -> None:
    source = chunk("A.pdf", "§ 1", 0, "(1) Die §§ 2 bis 3 des Betagesetzes gelten.")
    inserted = chunk("B.pdf", "§ 2a", 7, "Betagesetz § 2a")
    expander, passages = make([source, B2, inserted, chunk("B.pdf", "§ 3", 8, "Betagesetz § 3")])
    result = expander.expand([seed(source)], relevance({}), max_depth=1)
    assert sorted(p.chunk.section or "" for p in result.passages[1:]) == ["§ 2", "§ 2a", "§ 3"]
    assert ("B.pdf", "§ 2a") in passages.lookups


# --- the rest of a seed's section (seed_sections) ----------------------------------------------------------

A1_OPEN = chunk("A.pdf", "§ 1", 0, "(1) Die Pflicht gilt für jeden Betreiber.")
A1_MIDDLE = chunk("A.pdf", "§ 1", 1, "(2) Die Frist beträgt drei Monate.")
A1_LATER = chunk("A.pdf", "§ 1", 2, "(3) Es gelten die Werte nach § 3 der Gammaverordnung.")
C3_VALUES = chunk("C.pdf", "§ 3", 0, "(1) Der Wert beträgt 50 Millisievert.")
LONG_SECTION = [A1_OPEN, A1_MIDDLE, A1_LATER, C3_VALUES]


def test_a_reference_in_another_chunk_of_the_seed_section_is_followed_through_that_chunk() -> None:
    expander, _ = make(LONG_SECTION, seed_section_chunks=2)
    result = expander.expand([seed(A1_OPEN)], relevance({A1_LATER.id: 0.8, A1_MIDDLE.id: 0.2}), max_depth=1)
    # the chunk holding the reference enters right before the passage reached through it; the other does not
    assert ids(result.passages) == [A1_OPEN.id, A1_LATER.id, C3_VALUES.id]
    by_id = result.by_id()
    assert by_id[A1_LATER.id].depth == 0 and by_id[A1_LATER.id].via is None
    via = by_id[C3_VALUES.id].via
    assert via is not None and via.source_id == A1_LATER.id and via.mention == "§ 3 der Gammaverordnung"
    assert [p.id for p in result.chain(C3_VALUES.id)] == [A1_LATER.id, C3_VALUES.id]
    assert result.stats.companions == 1 and result.tokens == 300


def test_seed_section_scan_takes_the_most_relevant_chunks_and_can_be_switched_off() -> None:
    scores = relevance({A1_LATER.id: 0.1, A1_MIDDLE.id: 0.7})
    expander, _ = make(LONG_SECTION, seed_section_chunks=1)  # the most relevant other chunk has no reference
    assert ids(expander.expand([seed(A1_OPEN)], scores, max_depth=1).passages) == [A1_OPEN.id]
    expander, _ = make(LONG_SECTION, seed_section_chunks=0)
    assert ids(expander.expand([seed(A1_OPEN)], scores, max_depth=1).passages) == [A1_OPEN.id]
    expander, _ = make(LONG_SECTION, seed_section_chunks=2)
    assert ids(expander.expand([seed(A1_OPEN)], scores, max_depth=1).passages) == [
        A1_OPEN.id,
        A1_LATER.id,
        C3_VALUES.id,
    ]


def test_a_seed_section_chunk_that_does_not_fit_the_budget_is_not_added() -> None:
    expander, _ = make(LONG_SECTION, seed_section_chunks=2, token_budget=250)  # seed 100 + 2 x 100 > 250
    result = expander.expand([seed(A1_OPEN)], relevance({A1_LATER.id: 0.8}), max_depth=1)
    assert ids(result.passages) == [A1_OPEN.id]
    assert result.stats.over_budget == 1 and result.stats.companions == 0


def test_reference_settings_set_the_seed_section_scan() -> None:
    settings = ReferenceSettings.model_validate({"seed_section_chunks": 3, "section_chunks": 2})
    limits = ExpansionLimits.from_settings(settings)
    assert (limits.seed_section_chunks, limits.section_chunks) == (3, 2)


def test_a_seed_section_chunk_citing_its_own_absatz_is_listed_once() -> None:
    self_citing = chunk(
        "A.pdf", "§ 1", 2, "(3) Abweichend von Absatz 3 gelten die Werte nach § 3 der Gammaverordnung."
    )
    expander, _ = make([A1_OPEN, A1_MIDDLE, self_citing, C3_VALUES], seed_section_chunks=2)
    result = expander.expand([seed(A1_OPEN)], relevance({self_citing.id: 0.8}), max_depth=2)
    assert ids(result.passages) == [A1_OPEN.id, self_citing.id, C3_VALUES.id]
    assert result.by_id()[C3_VALUES.id].via.source_id == self_citing.id  # type: ignore[union-attr]
