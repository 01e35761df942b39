"""The checkable tokens of a claim (research.evidence.claim_tokens): the same number, date, amount or
provision written two ways gives the same token; what differs does not."""

from __future__ import annotations

from rabbithole.research.evidence.claim_tokens import claim_tokens, covers, missing_tokens, same_law


def keys(text: str, **kwargs: object) -> list[tuple[str, str]]:
    return [(t.kind, t.key) for t in claim_tokens(text, **kwargs)]  # type: ignore[arg-type]


def test_numbers_with_units_are_normalised() -> None:
    assert keys("1 mSv") == keys("1 Millisievert") == [("quantity", "1 msv")]
    assert keys("0,3 mSv") == keys("0.3 Millisievert") == [("quantity", "0.3 msv")]
    assert keys("unter 18 Jahren") == keys("18 Jahre") == keys("18 years") == [("quantity", "18 year")]
    assert keys("1.000 Bq") == keys("1,000 Becquerel") == keys("1000 Bq") == [("quantity", "1000 bq")]
    assert keys("innerhalb von drei Monaten") == keys("3 Monate") == [("quantity", "3 month")]
    assert keys("1 mSv") != keys("1 Sv") != keys("1 MBq")
    assert keys("20 mSv") != keys("1 mSv")


def test_percentages_amounts_and_dates() -> None:
    assert keys("20 %") == keys("20 Prozent") == keys("20 vom Hundert") == [("percent", "20")]
    assert keys("100 Euro") == keys("EUR 100") == keys("100 €") == [("amount", "100 eur")]
    assert keys("1,5 Millionen Euro") == [("amount", "1500000 eur")]
    assert keys("am 1. Januar 2019") == keys("01.01.2019") == keys("2019-01-01") == [("date", "2019-01-01")]
    assert keys("January 1, 2019") == [("date", "2019-01-01")]
    assert keys("seit Januar 2020") == [("date", "2020-01")]


def test_provisions_with_their_law() -> None:
    short, long = claim_tokens("§ 7 AtG"), claim_tokens("§ 7 des Atomgesetzes")
    assert [(t.kind, t.key) for t in short] == [(t.kind, t.key) for t in long] == [("provision", "§7")]
    assert missing_tokens("nach § 7 des Atomgesetzes", short) == []
    assert missing_tokens("nach § 7 StrlSchG", short) != []  # another law
    assert missing_tokens("nach § 9 AtG", short) != []
    assert keys("Artikel 9 DSGVO") == [("provision", "art9")]
    assert keys("Anlage 4 des Strahlenschutzgesetzes") == [("provision", "anlage4")]
    # a provision without a law belongs to the document's law, when it is known
    own = claim_tokens("nach § 7 Absatz 1 dieses Gesetzes", document_laws=["AtG"])
    assert own[0].laws == ("AtG",) and own[0].detail == "1"
    assert missing_tokens("§ 7 Abs. 1 Atomgesetz", own) == []
    assert missing_tokens("§ 7 Abs. 2 Atomgesetz", own) != []
    assert same_law("StrlSchG", "Strahlenschutzgesetz") and not same_law("AtG", "Strahlenschutzgesetz")


def test_numbers_inside_references_are_not_numbers_of_their_own() -> None:
    assert keys("nach Satz 1 Nummer 3") == []
    assert keys("ein Grenzwert") == []  # "ein" is an article without a unit


def test_the_missing_tokens_of_a_claim() -> None:
    quote = claim_tokens(
        "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis "
        "1 Millisievert im Kalenderjahr."
    )
    assert missing_tokens("Personen unter 18 Jahren: 1 mSv im Kalenderjahr", quote) == []
    missing = missing_tokens("Personen unter 18 Jahren: 20 Millisievert im Kalenderjahr", quote)
    assert [(t.kind, t.key, t.text) for t in missing] == [("quantity", "20 msv", "20 Millisievert")]


def test_a_date_holds_its_year() -> None:
    (date,) = claim_tokens("am 31.12.2018")
    (year,) = claim_tokens("seit 2018")
    assert covers(date, year) and not covers(year, date)


def test_a_line_break_between_number_and_unit_as_page_text_has_it() -> None:
    # StrlSchG § 78 (1) on its page: "... beträgt für beruflich exponierte Personen 20\nMillisievert im ..."
    assert keys("Personen 20\nMillisievert im Kalenderjahr") == [("quantity", "20 msv")]
    assert keys("von 1,5\nMillionen Euro und EUR\n100") == [("amount", "1500000 eur"), ("amount", "100 eur")]
    page = claim_tokens("exponierte Personen 20\nMillisievert im Kalenderjahr.")
    assert missing_tokens("Der Grenzwert beträgt 20 mSv im Kalenderjahr.", page) == []


def test_absatz_and_list_markers_are_not_figures() -> None:
    """ "(1)" numbering an Absatz and "1." a list item say where the text stands, not a figure it states (a
    fact starting "(1) Der Grenzwert ..." was taken as stated by any quote holding a 1)."""
    assert [t.key for t in claim_tokens("(1) Der Grenzwert beträgt 20 Millisievert.")] == ["20 msv"]
    assert [t.key for t in claim_tokens("1. für die Augenlinse 15 Millisievert im Kalenderjahr,")] == [
        "15 msv"
    ]
    assert [t.key for t in claim_tokens("Die Frist: 2. der Antrag ist schriftlich zu stellen.")] == []
    assert [t.key for t in claim_tokens("Er zahlt 5. Danach gilt Absatz (3).")] == ["5", "3"]
