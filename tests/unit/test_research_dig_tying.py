"""Facts tied to their sentences (issue 30): a fact whose numbers or provisions are not in the sentences the
model chose is quoted from the passage's sentences that hold them, or dropped."""

from __future__ import annotations

from types import SimpleNamespace

from rabbithole.core.config import ResearchSettings
from rabbithole.core.models import PageText
from rabbithole.research.dig.evidence import FindingsEvidence, evidence_from_findings
from rabbithole.research.dig.tying import sentence_tokens, tie_fact
from rabbithole.research.evidence.numbering import number_passages, sentence_text
from rabbithole.research.models import Passage, QueryAnchor

# A passage as the 0.5B model saw it: sentences 1-2 on a medical examination, the limit in sentence 11.
LINES = [
    "(1) Eine beruflich exponierte Person der Kategorie A darf nur beschäftigt werden, wenn sie ärztlich "
    "untersucht worden ist.",
    "(2) Die ärztliche Bescheinigung darf nicht älter als ein Jahr sein.",
    "(3) Die Behörde kann die Untersuchung anordnen.",
    "(4) Der Strahlenschutzverantwortliche hat die Ergebnisse aufzubewahren.",
    "(5) Die Aufzeichnungen sind der Behörde auf Verlangen vorzulegen.",
    "(6) Die Messung erfolgt mit einem amtlichen Dosimeter bis 20 Millisievert.",
    "(7) Die Messstelle teilt das Ergebnis mit.",
    "(8) Das Nähere regelt die Verordnung.",
    "(9) Ausnahmen sind zu begründen.",
    "(10) Die Pflichten gelten auch für Fremdfirmen.",
    "(11) Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20 Millisievert im "
    "Kalenderjahr.",
    "(12) Für Personen unter 18 Jahren beträgt der Grenzwert 1 Millisievert im Kalenderjahr.",
]
TEXT = "\n".join(LINES)
PAGES = [PageText(1, TEXT, 0)]
PASSAGE = Passage(
    chunk_id="c1",
    collection="sample",
    document="StrlSchG.pdf",
    page=1,
    page_end=1,
    section="§ 78",
    heading="Grenzwerte",
    start=0,
    end=len(TEXT),
    text=TEXT,
    relevance=0.6,
)
ANCHOR = QueryAnchor(question="Welche Grenzwerte gelten?", language="de")


def table_and_tokens() -> tuple[list, dict]:  # type: ignore[type-arg]
    table = number_passages([PASSAGE])
    texts = {s.number: sentence_text(PASSAGE, s) for s in table}
    tokens = sentence_tokens(table, texts, {"c1": ["StrlSchG"]}, {"c1": PASSAGE.section or ""})
    return table, tokens


def extract(fact: str, sentences: list[int]) -> FindingsEvidence:
    table, tokens = table_and_tokens()
    return evidence_from_findings(
        [SimpleNamespace(fact=fact, sentences=sentences, answers=True)],
        table,
        [PASSAGE],
        {("sample", "StrlSchG.pdf"): PAGES},
        task_id="t1",
        id_prefix="t1-b1",
        anchor=ANCHOR,
        settings=ResearchSettings(),
        sentences=tokens,
    )


def test_the_sentences_are_numbered_as_the_model_saw_them() -> None:
    table, _ = table_and_tokens()
    assert [TEXT[s.start : s.end] for s in table] == LINES


def test_a_fact_written_from_sentence_11_is_quoted_from_sentence_11() -> None:
    found = extract("Beruflich exponierte Personen: 20 mSv effektive Dosis im Kalenderjahr.", [1, 2])
    assert found.retied == 1 and found.dropped == 0
    assert [e.quote for e in found.evidence] == [LINES[10]]
    assert found.evidence[0].fact.startswith("Beruflich exponierte Personen: 20 mSv")


def test_chosen_sentences_that_hold_a_token_are_kept_beside_the_added_ones() -> None:
    # "ein Jahr" is in sentence 2, "20 Millisievert" only in 11
    _, tokens = table_and_tokens()
    tie = tie_fact("Die Bescheinigung gilt ein Jahr; der Grenzwert beträgt 20 Millisievert.", [1, 2], tokens)
    assert tie.sentences == [2, 11] and tie.retied


def test_a_fact_whose_sentences_hold_its_numbers_is_left_alone() -> None:
    found = extract("Für Personen unter 18 Jahren gilt 1 mSv im Kalenderjahr.", [12])
    assert found.retied == 0 and [e.quote for e in found.evidence] == [LINES[11]]
    _, tokens = table_and_tokens()
    assert tie_fact("Die Behörde kann eine Untersuchung anordnen.", [3], tokens).sentences == [3]
    assert not tie_fact("Die Behörde kann eine Untersuchung anordnen.", [3], tokens).retied


def test_the_passages_own_provision_is_in_every_sentence() -> None:
    _, tokens = table_and_tokens()
    tie = tie_fact(
        "Nach § 78 StrlSchG beträgt der Grenzwert 1 Millisievert für Personen unter 18.", [12], tokens
    )
    assert tie.sentences == [12] and not tie.retied
    elsewhere = tie_fact("Nach § 7 AtG ist eine Genehmigung nötig.", [3], tokens)
    assert elsewhere.sentences is None  # § 7 AtG is in no sentence of the passage


def test_a_fact_whose_number_no_passage_holds_is_dropped() -> None:
    found = extract("Der Grenzwert beträgt 6 Millisievert.", [11])
    assert found.evidence == [] and found.dropped == 1 and found.retied == 0


def test_of_two_sentences_holding_the_number_the_one_closer_in_words_wins() -> None:
    # 6 and 11 both hold "20 Millisievert"; 6 is nearer to the chosen one, 11 says what the fact says
    _, tokens = table_and_tokens()
    fact = "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert."
    assert tie_fact(fact, [1], tokens).sentences == [11]
    assert tie_fact("Gemessen wird mit einem amtlichen Dosimeter bis 20 mSv.", [1], tokens).sentences == [6]


def test_of_a_facts_quotes_only_those_that_state_one_of_its_figures_are_kept() -> None:
    # sentences 3 and 11 are two quotes; only 11 states "20 Millisievert"
    found = extract("Der Grenzwert der effektiven Dosis beträgt 20 Millisievert.", [3, 11])
    assert [e.quote for e in found.evidence] == [LINES[10]] and found.retied == 0
    # a fact without figures keeps every quote
    assert len(extract("Die Behörde ordnet an und die Messstelle teilt mit.", [3, 7]).evidence) == 2
