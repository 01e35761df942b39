"""The LLM reference detector and the detector modes, against the fake Ollama server (scripted answers)."""

from __future__ import annotations

import itertools

import pytest

from rabbithole.core.config import LLMSettings, ReferenceSettings
from rabbithole.core.errors import ConfigurationError, RabbitholeError
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.llm import LLMClient
from rabbithole.references.detector import ReferenceDetector, Verify, build_detector, merge, resolving
from rabbithole.references.grammar import detect_references
from rabbithole.references.llm_detector import (
    LLMMention,
    LLMReferenceDetector,
    LLMReferenceList,
    locate_mentions,
    text_windows,
    to_reference,
)
from rabbithole.references.models import RefType
from rabbithole.references.resolver import Citing, ReferenceResolver
from rabbithole.registry import DocumentEntry, DocumentRegistry, Synonym, SynonymKind

REGISTRY = DocumentRegistry(
    "test",
    [
        DocumentEntry("AtG.pdf", "Atomgesetz", "AtG", [Synonym("Atomgesetz", SynonymKind.TITLE)]),
        DocumentEntry(
            "StrlSchG.pdf",
            "Strahlenschutzgesetz",
            "StrlSchG",
            [Synonym("Strahlenschutzgesetz", SynonymKind.TITLE)],
        ),
        DocumentEntry(
            "StrlSchV.pdf",
            "Strahlenschutzverordnung",
            "StrlSchV",
            [Synonym("Strahlenschutzverordnung", SynonymKind.TITLE)],
        ),
    ],
)

TEXT = (
    "Die Genehmigung nach § 7 Absatz 1 des\nAtomgesetzes ist zu beachten. Die in der vorgenannten "
    "Verordnung festgelegten Grenzwerte gelten; das Nähere regelt die Strahlenschutzverordnung in ihrem "
    "§ 52."
)


def mention(text: str, kind: str = "section", **fields: str | None) -> dict[str, str | None]:
    return {"mention": text, "kind": kind, **fields}


def script(fake: FakeOllama, *mentions: dict[str, str | None]) -> None:
    fake.script({"references": list(mentions)}, schema=LLMReferenceList)


def test_llm_mode_locates_mentions_verbatim_and_discards_invented_ones(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    script(
        fake_ollama,
        mention("§ 7 Absatz 1 des Atomgesetzes", section="§ 7", absatz="1", law="des Atomgesetzes"),
        mention("der vorgenannten Verordnung", kind="law"),
        mention("§ 99 des Fantasiegesetzes", section="99", law="des Fantasiegesetzes"),
        mention("Strahlenschutzverordnung in ihrem\n§ 52", section="52", law="Strahlenschutzverordnung"),
    )
    detector = LLMReferenceDetector(llm_client, language="de")
    found = detector.detect(TEXT)
    assert found.proposed == 4 and found.discarded == 1
    assert found.discarded_mentions == ["§ 99 des Fantasiegesetzes"]
    for ref in found.references:
        assert TEXT[ref.start : ref.end] == ref.mention
    first, law, last = found.references
    assert first.mention == "§ 7 Absatz 1 des\nAtomgesetzes"  # whitespace may differ, the span is the text's
    assert (first.type, first.section, first.absatz, first.law_normalized) == (
        RefType.SECTION,
        "7",
        "1",
        "des Atomgesetzes",
    )
    assert TEXT[first.item_start : first.item_end] == "7"
    assert (law.type, law.same_document) == (RefType.LAW, True)
    assert (last.section, last.law, last.same_document) == ("52", "Strahlenschutzverordnung", False)


def test_prompt_carries_language_and_known_mentions(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    script(fake_ollama)
    grammar = detect_references(TEXT)
    LLMReferenceDetector(llm_client, language="de").detect(TEXT, grammar)
    request = fake_ollama.model_requests()[-1]
    system, user = request.messages[0]["content"], request.messages[-1]["content"]
    assert "German" in system and '{"references": [{"mention": string' in system  # the answer's shape
    assert "- § 7 Absatz 1 des\nAtomgesetzes" in user and "<document>" in user
    LLMReferenceDetector(llm_client, language="en").detect(TEXT, grammar)
    assert 'Write the optional "note" in English' in fake_ollama.model_requests()[-1].messages[0]["content"]


def registry_check(citing: str = "StrlSchG.pdf") -> Verify:
    """The check the CLI uses: model references must resolve in the collection (here a small registry)."""
    resolver = ReferenceResolver(REGISTRY)
    return resolving(lambda ref: resolver.resolve(ref, Citing(citing)))


def test_hybrid_adds_what_the_grammar_missed_without_duplicates(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    script(
        fake_ollama,
        mention("§ 7 Absatz 1 des Atomgesetzes", section="7", absatz="1", law="Atomgesetz"),  # the grammar's
        mention("§ 7", section="7", law="Atomgesetz"),  # inside the grammar's mention, same target
        mention("der vorgenannten Verordnung", kind="law"),  # names nothing: dropped
        # completes the grammar's internal "§ 52" with the law before it
        mention("Strahlenschutzverordnung in ihrem § 52", section="52", law="Strahlenschutzverordnung"),
    )
    grammar = detect_references(TEXT)
    settings = ReferenceSettings(detector="hybrid")
    detector = build_detector(settings, llm_client, language="de", verify=registry_check())
    detection = detector.run(TEXT)
    assert detection.grammar == len(grammar)
    assert detection.llm_duplicates == 2 and detection.llm_added == 1 and detection.llm_rejected == 1
    assert [(r.mention, why) for r, why in detection.rejected] == [
        ("der vorgenannten Verordnung", "names neither a provision nor a document")
    ]
    added = [r for r in detection.references if r not in grammar]
    assert [(r.mention, r.section, r.law_normalized) for r in added] == [
        ("Strahlenschutzverordnung in ihrem § 52", "52", "Strahlenschutzverordnung")
    ]
    internal = next(r for r in grammar if r.section == "52")
    assert internal not in detection.references  # the model's reading replaces the grammar's internal one
    assert detector(TEXT) == detection.references  # callable: what expansion takes


# A weak model (0.5B) answers with plausible spans that are verbatim in the text but cite nothing.
PROMULGATION = (
    "wenn die Dosisbegrenzung nach § 5 der Strahlenschutzverordnung vom 20. Juli 2001 (BGBl. I S. 1714; "
    "2002 I S. 1459), die zuletzt durch Artikel 5 Absatz 7 des Gesetzes vom 24. Februar 2012 (BGBl. I S. "
    "212) geändert worden ist, nicht eingehalten"
)
NO_REFERENCE = "Die Behörde entscheidet innerhalb von drei Monaten nach Eingang des Antrags."


def test_hybrid_is_never_worse_than_the_grammar_with_a_weak_model(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    script(
        fake_ollama,
        mention("BGBl. I S. 1714", kind="article", article="1714", law="BGBl"),
        mention("2002 I S. 1459", kind="article", article="1459"),
        mention("Artikel 5 Absatz 7 des Gesetzes", kind="article", article="5", absatz="7", law="Gesetz"),
        mention("vom 24. Februar 2012", kind="law", law="vom 24. Februar 2012"),
        mention("Absatz 7", section="7", law="Atomgesetz"),
        mention("§ 5", section="5", law="Atomgesetz"),  # the grammar's § 5 of the StrlSchV, misread
    )
    settings = ReferenceSettings(detector="hybrid")
    detection = build_detector(settings, llm_client, verify=registry_check("AtG.pdf")).run(PROMULGATION)
    assert detection.references == detect_references(PROMULGATION)
    assert detection.llm_added == 0 and detection.llm_rejected == 6
    rejected = {r.mention: why for r, why in detection.rejected}
    assert rejected["Absatz 7"] == "claims section 7, which the mention does not name"
    assert rejected["§ 5"].startswith("claims the law")
    # no false alarm on a sentence without references
    script(fake_ollama, mention("drei Monaten", section="3"), mention("Eingang des Antrags", kind="law"))
    quiet = build_detector(settings, llm_client, verify=registry_check()).run(NO_REFERENCE)
    assert quiet.references == [] and quiet.llm_rejected == 2
    # without a collection only external acts of a recognised form pass
    script(
        fake_ollama, mention("Richtlinie 2013/59/Euratom", kind="eu_act", law="Richtlinie 2013/59/Euratom")
    )
    text = "Sie setzt die Richtlinie 2013/59/Euratom um."
    plain = build_detector(settings, llm_client).run(text)
    assert plain.llm_rejected == 0 and plain.references == detect_references(text)  # a duplicate, kept once


def test_hybrid_falls_back_to_the_grammar_when_the_model_fails(
    fake_ollama: FakeOllama, fake_llm_settings: LLMSettings
) -> None:
    client = LLMClient(fake_llm_settings.model_copy(update={"structured_retries": 0}))
    fake_ollama.fault("error", status=500, message="model crashed", times=None)
    hybrid = build_detector(ReferenceSettings(detector="hybrid"), client)
    detection = hybrid.run(TEXT)
    assert detection.llm_errors == 1
    assert detection.references == detect_references(TEXT)
    with pytest.raises(RabbitholeError):
        build_detector(ReferenceSettings(detector="llm"), client).run(TEXT)


def test_regex_mode_never_calls_the_model(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    detector = build_detector(ReferenceSettings(detector="regex"), llm_client)
    assert detector(TEXT) == detect_references(TEXT)
    assert fake_ollama.model_requests() == []
    with pytest.raises(ConfigurationError):
        ReferenceDetector("llm")


def test_unscripted_answers_are_checked_against_the_text(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    detector = LLMReferenceDetector(llm_client)
    first = detector.detect(TEXT)
    again = detector.detect(TEXT)
    assert first.references == again.references  # deterministic
    assert first.proposed == first.discarded + len(first.references)
    for ref in first.references:
        assert " ".join(TEXT[ref.start : ref.end].split()) == " ".join(ref.mention.split())


def test_long_texts_go_in_windows(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    script(fake_ollama, mention("§ 52", section="52"))
    paragraph = "Ein Absatz ohne Verweise, der nur Platz füllt. " * 10
    text = "\n\n".join([paragraph, "Siehe § 52.", paragraph, paragraph, "Siehe § 52."])
    found = LLMReferenceDetector(llm_client, max_chars=700).detect(text)
    assert len(fake_ollama.model_requests()) == len(text_windows(text, 700)) >= 3
    located = sorted(r.start for r in found.references)
    assert [text[s : s + 4] for s in located] == ["§ 52"] * len(located) and len(located) >= 2


# -- the pure helpers -----------------------------------------------------------------------------------


def test_locate_repeated_mentions_takes_successive_occurrences() -> None:
    text = "nach § 5 und wieder nach § 5"
    items = [LLMMention(mention="§ 5", kind="section"), LLMMention(mention="§ 5", kind="section")]
    assert locate_mentions(text, items) == [(5, 8), (25, 28)]
    assert locate_mentions(text, [LLMMention(mention="  ", kind="law")]) == [None]


def test_text_windows_cover_the_text() -> None:
    text = ("Absatz eins. " * 30 + "\n\n") * 6
    spans = text_windows(text, 500)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(end - start <= 500 for start, end in spans)


def test_to_reference_kinds() -> None:
    text = "Artikel 3 der Richtlinie 2013/59/Euratom und Anlage 4 dieser Verordnung, siehe Absatz 2."
    eu_act = LLMMention(
        mention="Artikel 3 der Richtlinie 2013/59/Euratom",
        kind="eu_act",
        article="Art. 3",
        law="Richtlinie 2013/59/Euratom",
    )
    eu = to_reference(eu_act, 0, 40, text)
    assert (eu.type, eu.article, eu.external, eu.same_document) == (RefType.EU_ACT, "3", True, False)
    annex = to_reference(
        LLMMention(
            mention="Anlage 4 dieser Verordnung", kind="annex", annex="Anlage 4", law="dieser Verordnung"
        ),
        45,
        71,
        text,
    )
    assert (annex.annex, annex.same_document, annex.law_normalized) == ("4", True, None)
    bare = to_reference(LLMMention(mention="Absatz 2", kind="paragraph", absatz="2"), 79, 87, text)
    assert (bare.type, bare.relative_to, bare.absatz) == (RefType.PARAGRAPH, "section", "2")


def test_merge_drops_overlapping_same_target_only() -> None:
    text = "nach § 5 Absatz 2 des Atomgesetzes"
    grammar = detect_references(text)
    same = to_reference(LLMMention(mention="§ 5", kind="section", section="5", law="Atomgesetz"), 5, 8, text)
    other_law = to_reference(
        LLMMention(mention="§ 5", kind="section", section="5", law="Strahlenschutzgesetz"), 5, 8, text
    )
    merged, duplicates = merge(grammar, [same, other_law])
    assert duplicates == 1 and merged == sorted([*grammar, other_law], key=lambda r: (r.start, r.item_start))
    # a canonical name (the registry's document) makes different spellings of one law the same target
    abbreviated = to_reference(LLMMention(mention="§ 5", kind="section", section="5", law="AtG"), 5, 8, text)
    docs = {"Atomgesetz": "AtG.pdf", "AtG": "AtG.pdf"}
    assert merge(grammar, [abbreviated], docs.get)[1] == 1
    assert merge(grammar, [abbreviated])[1] == 0
