"""The deterministic guards on the model's report text (research.guards)."""

from __future__ import annotations

from rabbithole.research.guards import GuardClaim, GuardSection, TextGuards, guard_draft, is_placeholder

SENTENCE = "Jugendliche unter 18 Jahren dürfen nicht als beruflich exponierte Personen eingesetzt werden."
IDS = ["t1-b1-e1", "t1-b1-e2", "t2-b1-e1", "t2-b1-e2", "t2-b1-e3"]
TASKS = ["Grenzwerte für Jugendliche", "Ausnahmen in der Ausbildung"]


def test_the_motivating_report_gets_a_title_headings_and_one_claim() -> None:
    headings = ["Section heading"] * 4 + ["Claims"]
    sections = [GuardSection(h, [GuardClaim(SENTENCE, list(IDS)) for _ in range(3)]) for h in headings]
    sections[0].claims[0] = GuardClaim(SENTENCE, list(IDS[:2]))  # 14 repeats in all, the same citations
    assert sum(len(s.claims) for s in sections) == 15
    sections[-1].claims.pop()
    guarded = guard_draft(
        "ReportDraft", sections, task_titles=TASKS, question="Welche Grenzwerte gelten?", language="de"
    )
    assert guarded.title == "Welche Grenzwerte gelten?"
    assert [s.heading for s in guarded.sections] == [TASKS[0]]
    assert [(c.text, c.evidence_ids) for c in guarded.sections[0].claims] == [(SENTENCE, IDS)]
    c = guarded.counts
    assert (c.repeated_claims_dropped, c.sections_dropped, c.headings_replaced, c.title_replaced) == (
        13,
        4,
        1,
        True,
    )
    assert c.uncited_claims == 0 and c.headings_numbered == 0


def test_placeholders_in_both_languages_take_the_task_titles_in_order() -> None:
    headings = ["Section 1", "Abschnitt 2", "<heading>", "Sections", "", "...", "TODO", "string"]
    sections = [
        GuardSection(h, [GuardClaim(f"Satz Nummer {i} handelt von etwas anderem.", ["e1"])])
        for i, h in enumerate(headings)
    ]
    titles = [f"Aufgabe {chr(65 + i)}" for i in range(6)]
    guarded = guard_draft("Title", sections, task_titles=titles, question="", language="de")
    assert [s.heading for s in guarded.sections] == [*titles, "Teil 1", "Teil 2"]
    assert guarded.counts.headings_replaced == 8
    assert guarded.counts.headings_numbered == 2
    assert guarded.title == titles[0] and guarded.counts.title_replaced


def test_english_fallback_and_duplicate_headings_made_distinct() -> None:
    sections = [
        GuardSection("Costs", [GuardClaim("The operator pays the site selection costs.", ["e1"])]),
        GuardSection("Costs", [GuardClaim("The federal office recovers them by levies.", ["e2"])]),
        GuardSection("Heading", [GuardClaim("A third statement about something else.", ["e3"])]),
    ]
    guarded = guard_draft("Who pays?", sections, task_titles=["Costs"], question="q", language="en")
    assert [s.heading for s in guarded.sections] == ["Costs", "Part 1", "Part 2"]
    assert guarded.counts.headings_replaced == 2 and guarded.title == "Who pays?"


def test_a_section_hint_comes_before_the_task_titles() -> None:
    sections = [
        GuardSection("Section heading", [GuardClaim("A statement.", ["e1"])], hint="Wer trägt die Kosten?")
    ]
    guarded = guard_draft("Bericht", sections, task_titles=["Andere Aufgabe"], question="q", language="de")
    assert guarded.sections[0].heading == "Wer trägt die Kosten?"


def test_real_headings_and_distinct_sentences_are_left_alone() -> None:
    headings = ["§ 5 Absatz 2", "Zuständigkeit", "Section 4.2 of the standard", "Claims handling in court"]
    texts = [
        "Die Dosis ist auf 1 mSv im Jahr begrenzt.",
        "Die Dosis ist auf 6 mSv im Jahr begrenzt.",
        "The limit applies to apprentices between 16 and 18 years of age.",
        "The limit applies to students between 16 and 18 years of age in training.",
    ]
    sections = [GuardSection(h, [GuardClaim(t, ["e1"])]) for h, t in zip(headings, texts, strict=True)]
    guarded = guard_draft("Grenzwerte", sections, task_titles=["X"], question="q", language="de")
    assert [s.heading for s in guarded.sections] == headings
    assert [c.text for s in guarded.sections for c in s.claims] == texts
    assert guarded.counts == TextGuards()
    assert not any(is_placeholder(h) for h in headings)


def test_repeats_normalised_near_repeats_and_repeats_inside_one_claim() -> None:
    first = "The operator of the repository bears all costs of the site selection procedure."
    sections = [
        GuardSection("Costs", [GuardClaim(f"{first} {first} {first}", ["e1"])]),
        GuardSection(
            "Levies",
            [
                GuardClaim(
                    "THE OPERATOR of the repository bears all costs of the site selection procedure [3]!",
                    ["e2", "e1"],
                ),
                GuardClaim(
                    "The operator of the repository bears all the costs of the site selection procedure.",
                    ["e3"],
                ),
                GuardClaim("Levies are collected by the federal office.", []),
            ],
        ),
    ]
    guarded = guard_draft("Costs", sections, task_titles=[], question="q", language="en")
    claims = [c for s in guarded.sections for c in s.claims]
    assert [(c.text, c.evidence_ids, c.uncited) for c in claims] == [
        (first, ["e1", "e2", "e3"], False),
        ("Levies are collected by the federal office.", [], True),
    ]
    assert guarded.counts.repeated_sentences_collapsed == 2
    assert guarded.counts.repeated_claims_dropped == 2
    assert guarded.counts.uncited_claims == 1
    assert guarded.counts.sections_dropped == 0


def test_kept_sections_that_only_repeat_other_sections_keep_their_place_empty_and_name_where() -> None:
    said = "The operator of the repository bears all costs of the site selection procedure."
    sections = [
        GuardSection("Costs", [GuardClaim(said, ["e1"])], key="s1"),
        GuardSection("Operator", [GuardClaim(said, ["e2"]), GuardClaim(said, ["e3"])], key="s2"),
        GuardSection("Outlook", [GuardClaim(said, []), GuardClaim("Levies follow later.", [])], key="s3"),
    ]
    guarded = guard_draft("Costs", sections, task_titles=[], question="q", language="en", keep_sections=True)
    assert [[(c.text, c.evidence_ids) for c in s.claims] for s in guarded.sections] == [
        [(said, ["e1", "e2", "e3"])],
        [],
        [("Levies follow later.", [])],
    ]
    assert [s.repeats for s in guarded.sections] == [None, "s1", None]
    assert guarded.counts.repeated_claims_dropped == 3 and guarded.counts.sections_dropped == 0
    dropped = guard_draft("Costs", sections, task_titles=[], question="q", language="en")
    assert [s.heading for s in dropped.sections] == ["Costs", "Outlook"]
    assert dropped.sections[0].claims[0].evidence_ids == ["e1", "e2", "e3"]
    assert dropped.counts.sections_dropped == 1


def test_a_sentence_an_earlier_claim_says_is_cut_from_a_longer_claim() -> None:
    """A finding quoted whole holds a sentence another finding states alone: the report says it once."""
    alone = (
        "(3) Eine Festlegung von Dosisrichtwerten soll insbesondere dann in die Planung aufgenommen werden."
    )
    whole = f"(2) Der Strahlenschutzverantwortliche legt Dosisrichtwerte fest. {alone}"
    sections = [
        GuardSection("Planung", [GuardClaim(alone, ["e1"])]),
        GuardSection("Pflichten", [GuardClaim(whole, ["e2"]), GuardClaim(alone + " Abs. 2 gilt.", ["e3"])]),
    ]
    guarded = guard_draft("R", sections, task_titles=[], question="q", language="de")
    assert [[(c.text, c.evidence_ids) for c in s.claims] for s in guarded.sections] == [
        [(alone, ["e1", "e3"])],
        [("(2) Der Strahlenschutzverantwortliche legt Dosisrichtwerte fest.", ["e2"])],
    ]
    assert guarded.counts.repeated_sentences_collapsed == 1 and guarded.counts.repeated_claims_dropped == 1


def test_sentences_are_split_as_on_the_page_so_an_abbreviation_cuts_nothing() -> None:
    first = "Nach § 7 Abs. 2 des Atomgesetzes ist die Genehmigung zu versagen."
    second = "Nach § 9 Abs. 2 des Atomgesetzes ist die Genehmigung zu versagen."
    sections = [
        GuardSection("A", [GuardClaim(first, ["e1"])]),
        GuardSection("B", [GuardClaim(second, ["e2"])]),
    ]
    guarded = guard_draft("R", sections, task_titles=[], question="q", language="de")
    assert [[c.text for c in s.claims] for s in guarded.sections] == [[first], [second]]
