from __future__ import annotations

import random
import re

import pytest

from rabbithole.core.models import PageText
from rabbithole.research.evidence.numbering import NumberedSentence, group_runs, number_passages
from rabbithole.research.evidence.quotes import (
    PageQuote,
    normalize_with_map,
    quote_from_run,
    quotes_from_run,
    verify_quote,
)
from rabbithole.research.models import Passage

PAGE_TEXTS = [
    "Teil 1 - Allgemeine Vorschriften\n\n(1) Dieses Gesetz trifft Regelungen zum Schutz des Menschen.",
    "(2) Die Behörde prüft die Anzeige. Sie entscheidet innerhalb von vier\nWochen.",
    "(3) Letzte Seite.",
]


def make_pages(texts: list[str]) -> list[PageText]:
    pages: list[PageText] = []
    offset = 0
    for number, text in enumerate(texts, start=1):
        pages.append(PageText(number=number, text=text, offset=offset))
        offset += len(text) + len("\n\f")
    return pages


PAGES = make_pages(PAGE_TEXTS)
DOCUMENT = "\n\f".join(PAGE_TEXTS)


def sentence(number: int, text: str, chunk: str = "c") -> NumberedSentence:
    start = DOCUMENT.index(text)
    return NumberedSentence(number, chunk, start, start + len(text))


def test_quote_of_a_run_on_one_page() -> None:
    run = [sentence(1, "(2) Die Behörde prüft die Anzeige."), sentence(2, "Sie entscheidet")]
    quote = quote_from_run(run, PAGES)
    assert quote == PageQuote(2, 0, len("(2) Die Behörde prüft die Anzeige. Sie entscheidet"), quote.text)
    assert quote.text == PAGE_TEXTS[1][quote.start : quote.end]
    assert quote.text == "(2) Die Behörde prüft die Anzeige. Sie entscheidet"


def test_quote_crossing_a_page_is_cut_at_the_end_of_its_first_page() -> None:
    start = DOCUMENT.index("(1) Dieses")
    end = DOCUMENT.index("Anzeige.") + len("Anzeige.")
    quote = quote_from_run([NumberedSentence(1, "c", start, end)], PAGES)
    assert quote.page == 1
    assert quote.text == "(1) Dieses Gesetz trifft Regelungen zum Schutz des Menschen."
    assert quote.text == PAGE_TEXTS[0][quote.start : quote.end]
    assert quote.end == len(PAGE_TEXTS[0])


def test_quote_on_a_later_page_uses_page_offsets() -> None:
    quote = quote_from_run([sentence(7, "Letzte Seite.")], PAGES)
    assert (quote.page, quote.start, quote.end) == (3, 4, 17)
    assert quote.text == PAGE_TEXTS[2][4:17]


def test_quote_from_numbered_passage_is_verbatim_end_to_end() -> None:
    passage = Passage(
        chunk_id="c",
        collection="sample",
        document="x.pdf",
        page=1,
        page_end=2,
        start=0,
        end=len(DOCUMENT),
        text=DOCUMENT,
    )
    table = number_passages([passage])
    for run in group_runs([s.number for s in table], table, max_gap=0):
        quote = quote_from_run(run, PAGES)
        assert quote.text == PAGES[quote.page - 1].text[quote.start : quote.end]
        assert quote.text.strip() == quote.text


def test_quote_errors() -> None:
    with pytest.raises(ValueError):
        quote_from_run([], PAGES)
    with pytest.raises(ValueError):
        quote_from_run([NumberedSentence(1, "c", 10_000, 10_010)], PAGES)
    separator = len(PAGE_TEXTS[0])  # the "\n\f" between pages 1 and 2
    with pytest.raises(ValueError):
        quote_from_run([NumberedSentence(1, "c", separator, separator + 1)], PAGES)


def check(quote: str, page: str, expected: str) -> None:
    found = verify_quote(quote, page)
    assert found is not None, f"{quote!r} not found"
    assert page[found[0] : found[1]] == expected


def test_exact_quote_offsets() -> None:
    page = "Vorher. Die Behörde prüft die Anzeige. Nachher."
    assert verify_quote("Die Behörde prüft die Anzeige.", page) == (8, 38)


def test_whitespace_runs_and_line_breaks() -> None:
    page = "Die  zuständige\nBehörde\n\n  prüft\tdie Anzeige."
    check("Die zuständige Behörde prüft die Anzeige.", page, page)
    check("  zuständige   Behörde \n", page, "zuständige\nBehörde")


def test_hyphenation_at_line_end() -> None:
    page = "Der Strahlen-\nschutz ist Aufgabe der Röntgen-\nEinrichtung und der Ein-\nund Ausfuhr."
    check("Strahlenschutz ist Aufgabe", page, "Strahlen-\nschutz ist Aufgabe")
    check("der Röntgen-Einrichtung", page, "der Röntgen-\nEinrichtung")
    check("Ein- und Ausfuhr.", page, "Ein-\nund Ausfuhr.")
    assert verify_quote("Strahlen- schutz", page) is None


def test_ligatures_and_nfkc() -> None:
    page = "Die Pﬂicht zur Prüfung der ﬁnalen Werte: 5\u00a0mSv."
    check("Die Pflicht zur Prüfung der finalen Werte: 5 mSv.", page, page)
    decomposed = "Pru\u0308fung"
    check(decomposed, page, "Prüfung")


def test_soft_hyphens_and_invisible_characters() -> None:
    page = "Strahlen\u00adschutz und Genehmi\u00ad\ngung sowie Zu\u200bstimmung."
    check("Strahlenschutz und Genehmigung sowie Zustimmung.", page, page)
    check("Genehmigung", page, "Genehmi\u00ad\ngung")


def test_typographic_quotes_and_dashes_are_folded() -> None:
    page = "Er nannte es „Stand der Technik“ – nicht ‚Regel‘ — vgl. §§ 5–7."
    check("Er nannte es \"Stand der Technik\" - nicht 'Regel' - vgl. §§ 5-7.", page, page)
    check("„Stand der Technik“", page, "„Stand der Technik“")


def test_case_is_kept_and_no_false_matches() -> None:
    page = "Die zuständige Behörde prüft die Anzeige."
    assert verify_quote("die zuständige behörde", page) is None
    assert verify_quote("Die zuständige Behörde prüft die Meldung.", page) is None
    assert verify_quote("Behördeprüft", page) is None
    assert verify_quote("", page) is None
    assert verify_quote(" \n ", page) is None
    assert verify_quote("Die Behörde", "") is None


def test_first_occurrence_wins() -> None:
    page = "Satz eins. Satz eins."
    assert verify_quote("Satz eins.", page) == (0, 10)


def test_normalize_map_points_into_the_original() -> None:
    text = "  A\u00adb-\ncd ﬁ  „x“\n"
    normalized, spans = normalize_with_map(text)
    assert normalized == 'Abcd fi "x"'
    assert len(spans) == len(normalized)
    assert [text[s:e] for s, e in spans] == ["A", "b", "c", "d", " ", "ﬁ", "ﬁ", "  ", "„", "x", "“"]


def test_quotes_from_run_gives_one_quote_per_page() -> None:
    run = [
        sentence(2, "(1) Dieses Gesetz trifft Regelungen zum Schutz des Menschen."),
        sentence(3, "(2) Die Behörde prüft die Anzeige."),
    ]
    quotes = quotes_from_run(run, PAGES)
    assert [(q.page, q.text) for q in quotes] == [
        (1, "(1) Dieses Gesetz trifft Regelungen zum Schutz des Menschen."),
        (2, "(2) Die Behörde prüft die Anzeige."),
    ]
    assert all(q.text == PAGE_TEXTS[q.page - 1][q.start : q.end] for q in quotes)
    assert quotes_from_run([], PAGES) == []


def test_random_slices_are_found_at_equivalent_offsets() -> None:
    page = (
        "(1) Die zuständige Behörde prüft die Anzeige innerhalb von vier Wochen nach Eingang der\n"
        "Unterlagen. Der Strahlen-\nschutz\u00adbeauftragte hat die „Fachkunde“ – ﬁnal – im Strahlen-\n"
        "schutz.\n\n(2) Leitet die zuständige Behörde ein Verfahren ein, so setzt sie es aus."
    )
    words = [m.span() for m in re.finditer(r"\S+", page)]
    rng = random.Random(11)
    for _ in range(300):
        first = rng.randrange(len(words))
        last = rng.randrange(first, len(words))
        start, end = words[first][0], words[last][1]
        quote = page[start:end]
        found = verify_quote(quote, page)
        assert found is not None, repr(quote)
        assert found[0] <= start  # the first occurrence, at the latest the quote's own place
        wanted = normalize_with_map(quote)[0]
        assert normalize_with_map(page[found[0] : found[1]])[0] in (wanted, wanted.removesuffix("-"))
    assert verify_quote("Strahlen schutz", page) is None
    cut = verify_quote("– im Strahlen-", page)
    assert cut is not None and page[cut[0] : cut[1]] == "– im Strahlen"
    assert verify_quote("Strahlenschutzbeauftragte", page) is not None
