"""Pure logic of report mode: outline proposals and edits, the routers, the global citation numbering,
small-to-large neighbours, the terminal outline editor."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.types import Send
from pydantic import ValidationError

from rabbithole.cli.report_terminal import edit_outline
from rabbithole.core.models import Chunk
from rabbithole.research.evidence.citations import DraftClaim, DraftSection, render_report
from rabbithole.research.models import Evidence, Passage, QueryAnchor, TaskSpec
from rabbithole.research.report import assembly, routers
from rabbithole.research.report.models import ReviewTarget, SectionResult, SectionSpec
from rabbithole.research.report.outline import OutlineEditError, apply_answer, proposed_outline
from rabbithole.research.report.schemas import OutlineAnswer, SectionDraft
from rabbithole.research.report.section_nodes import neighbours

ANCHOR = QueryAnchor(question="Thema", language="de")


def spec(n: int, research: bool = True, title: str | None = None) -> SectionSpec:
    return SectionSpec(
        id=f"s{n}", title=title or f"Abschnitt {n}", research=research, questions=[f"Frage {n}"]
    )


def evidence(eid: str, start: int, page: int = 1, document: str = "A.pdf") -> Evidence:
    return Evidence(
        id=eid, task_id="t", chunk_id="c", collection="k", document=document, page=page,
        quote=f"q{start:04d}", start=start, end=start + 5, fact=f"Fakt {eid}",
    )  # fmt: skip


def result(section: SectionSpec, items: list[Evidence], cites: list[list[str]]) -> SectionResult:
    claims = [DraftClaim(text=f"{section.title} Satz {i}.", evidence_ids=ids) for i, ids in enumerate(cites)]
    return SectionResult(
        section=section, draft=DraftSection(heading=section.title, claims=claims), evidence=items
    )


# -- outline -------------------------------------------------------------------------------------------


def test_proposed_outline_deduplicates_adds_the_asked_sections_and_renumbers() -> None:
    drafts = [
        SectionDraft(title="Einleitung", research=False),
        SectionDraft(title=" einleitung ", research=True),
        SectionDraft(title="Grenzwerte", research=True, questions=["Grenzwerte?", "grenzwerte?"]),
    ]
    outline = proposed_outline(drafts, ["Fristen", "GRENZWERTE"], limit=10)
    assert [(s.id, s.title, s.research) for s in outline] == [
        ("s1", "Einleitung", False),
        ("s2", "Grenzwerte", True),
        ("s3", "Fristen", True),
    ]
    assert outline[1].questions == ["Grenzwerte?"] and outline[2].questions == ["Fristen"]
    assert len(proposed_outline(drafts, ["Fristen"], limit=1)) == 1


def test_edits_rename_reorder_add_remove_and_toggle() -> None:
    proposed = [spec(1), spec(2), spec(3, research=False)]
    answer = OutlineAnswer.model_validate(
        {
            "action": "edit",
            "sections": [
                {"id": "s3", "title": "Abschnitt 3", "research": True},
                {"id": "s1", "title": "Neuer Titel"},
                {"title": "Neu", "research": False},
            ],
        }
    )
    edited = apply_answer(proposed, answer, limit=5)
    assert [(s.id, s.title, s.research) for s in edited] == [
        ("s1", "Abschnitt 3", True),
        ("s2", "Neuer Titel", True),
        ("s3", "Neu", False),
    ]
    assert edited[0].questions == ["Frage 3"]  # kept: same title
    assert edited[1].questions == ["Neuer Titel"]  # renamed: searched under its new title
    assert apply_answer(proposed, OutlineAnswer(action="approve"), limit=5) == proposed


def test_edited_questions_are_searched_blank_and_repeated_ones_dropped() -> None:
    proposed = [
        spec(1).model_copy(update={"corpus_queries": ["Query 1"]}),
        spec(2).model_copy(update={"corpus_queries": ["Query 2"]}),
        spec(3),
    ]
    answer = OutlineAnswer.model_validate(
        {
            "action": "edit",
            "sections": [
                {"id": "s1", "title": "Abschnitt 1", "questions": [" frage  1 "]},  # the same, re-typed
                {"id": "s2", "title": "Abschnitt 2", "questions": ["Neu?", " ", "neu?", "Noch eine"]},
                {"id": "s3", "title": "Umbenannt", "questions": ["Frage 3"]},  # renamed, questions kept
                {"title": "Hinzugefügt", "questions": ["Was gilt?"]},
                {"title": "Leer", "questions": ["", "  "]},
            ],
        }
    )
    edited = apply_answer(proposed, answer, limit=5)
    assert [s.questions for s in edited] == [
        ["frage 1"],
        ["Neu?", "Noch eine"],
        ["Frage 3"],
        ["Was gilt?"],
        ["Leer"],  # none left: searched under its title
    ]
    assert [s.corpus_queries for s in edited] == [["Query 1"], [], [], [], []]


@pytest.mark.parametrize("questions", [["Frage"] * 7, ["x" * 501]], ids=["more than 6", "longer than 500"])
def test_edited_questions_are_bounded(questions: list[str]) -> None:
    with pytest.raises(ValidationError):
        OutlineAnswer.model_validate({"action": "edit", "sections": [{"title": "A", "questions": questions}]})


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        ([], "at least one"),
        ([{"title": "A"}, {"title": " a "}], "twice"),
        ([{"title": f"T{i}"} for i in range(4)], "at most 3"),
    ],
)
def test_invalid_edits_say_why(sections: list[dict[str, Any]], message: str) -> None:
    answer = OutlineAnswer.model_validate({"action": "edit", "sections": sections})
    with pytest.raises(OutlineEditError, match=message):
        apply_answer([spec(1)], answer, limit=3)


@pytest.mark.parametrize(
    "body",
    [
        {"action": "edit"},
        {"action": "feedback"},
        {"action": "feedback", "feedback": "  "},
        {"action": "approve", "feedback": "x"},
        {"action": "approve", "sections": []},
        {"action": "yes"},
        {"tasks": None},
    ],
)
def test_outline_answers_must_fit_their_action(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        OutlineAnswer.model_validate(body)


# -- routers -------------------------------------------------------------------------------------------


def report_state(outline: list[SectionSpec], **extra: Any) -> Any:
    return {
        "question": "Thema",
        "guidance": "",
        "language": "de",
        "corpus_language": "de",
        "collections": ["k"],
        "anchor": ANCHOR,
        "outline": outline,
        "refinement_rounds": 1,
        **extra,
    }


def test_after_outline_replans_or_sends_the_research_sections_or_frames() -> None:
    outline = [spec(1), spec(2, research=False), spec(3)]
    assert routers.after_outline(report_state(outline, replan=True)) == "outline_search"
    sends = routers.after_outline(report_state(outline))
    assert isinstance(sends, list) and [s.arg["section"].id for s in sends] == ["s1", "s3"]
    assert all(s.node == "section" and s.arg["refinement"] == 0 and s.arg["previous"] is None for s in sends)
    framing = routers.after_outline(report_state([spec(1, research=False)]))
    assert isinstance(framing, list) and [(s.node, s.arg["section"].id) for s in framing] == [("frame", "s1")]


def test_after_sections_reviews_while_rounds_are_left_then_frames_or_compiles() -> None:
    outline = [spec(1), spec(2, research=False)]
    done = {"s1": result(spec(1), [], [[]])}
    assert routers.after_sections(report_state(outline, sections_done=done, refinement_round=0)) == "review"
    framing = routers.after_sections(report_state(outline, sections_done=done, refinement_round=1))
    assert isinstance(framing, list) and framing[0].arg["researched"] == [done["s1"]]
    only_research = report_state([spec(1)], sections_done=done, refinement_round=1)
    assert routers.after_sections(only_research) == "compile"
    no_rounds = report_state([spec(1)], sections_done=done, refinement_rounds=0)
    assert routers.after_sections(no_rounds) == "compile"


def test_after_review_sends_only_the_named_sections_with_their_earlier_result() -> None:
    done = {"s1": result(spec(1), [], [[]]), "s2": result(spec(2), [], [[]])}
    targets = [ReviewTarget(section_id="s2", instructions="mehr", queries=["q"])]
    state = report_state([spec(1), spec(2)], sections_done=done, review=targets, refinement_round=1)
    sends = routers.after_review(state)
    assert isinstance(sends, list) and len(sends) == 1
    arg = sends[0].arg
    assert (arg["section"].id, arg["refinement"], arg["instructions"], arg["queries"]) == (
        "s2",
        1,
        "mehr",
        ["q"],
    )
    assert arg["previous"] is done["s2"]
    assert routers.after_review(report_state([spec(1)], sections_done=done, review=[])) == "compile"


def test_section_routers() -> None:
    assert routers.after_grade({"next_queries": ["x"]}) == "plan_round"  # type: ignore[typeddict-item]
    assert routers.after_grade({"next_queries": []}) == "finish_section"  # type: ignore[typeddict-item]
    assert routers.to_extraction({"batches": [], "passages": []}) == "write"  # type: ignore[typeddict-item]
    task_state: Any = {"task": TaskSpec(id="s1-p0-d0", title="A"), "language": "de", "corpus_language": "de"}
    assert routers.section_start(task_state) == "make_queries"
    sends = routers.to_extraction(
        {
            "batches": [["c1"]],
            "passages": [passage("c1", 0)],
            "task": task_state["task"],
            "anchor": ANCHOR,
            "language": "de",
        }  # type: ignore[typeddict-item]
    )
    assert isinstance(sends, list) and isinstance(sends[0], Send) and sends[0].node == "extract"


# -- numbering -----------------------------------------------------------------------------------------


def test_the_same_quote_found_twice_is_one_source_with_one_number() -> None:
    a, b = spec(1), spec(2)
    first = result(a, [evidence("s1-p0-d0-b1-e1", 0), evidence("s1-p0-d0-b1-e2", 50)], [["s1-p0-d0-b1-e2"]])
    # s2 found the first quote again under its own id, and cites both
    found = [evidence("s2-p0-d0-b1-e1", 50), evidence("s2-p0-d0-b1-e2", 90)]
    second = result(b, found, [["s2-p0-d0-b1-e1", "s2-p0-d0-b1-e2"]])
    mapping, kept = assembly.canonical_ids([first.evidence, second.evidence])
    assert mapping["s2-p0-d0-b1-e1"] == "s1-p0-d0-b1-e2"
    assert [e.id for e in kept] == ["s1-p0-d0-b1-e1", "s1-p0-d0-b1-e2", "s2-p0-d0-b1-e2"]
    drafts = assembly.merged_drafts([first, second], mapping)
    rendered = render_report(drafts, {e.id for e in kept})
    assert [c.numbers for c in rendered.claims] == [[1], [1, 2]]
    assert rendered.order == ["s1-p0-d0-b1-e2", "s2-p0-d0-b1-e2"]


def test_unknown_ids_stay_unknown_so_rendering_removes_them() -> None:
    section = result(spec(1), [evidence("e1", 0)], [["e1", "made-up"]])
    mapping, kept = assembly.canonical_ids([section.evidence])
    rendered = render_report(assembly.merged_drafts([section], mapping), {e.id for e in kept})
    assert rendered.removed == 1 and rendered.claims[0].numbers == [1]


def test_table_of_contents_after_the_title() -> None:
    toc = assembly.table_of_contents(["Grenzwerte für Personen", "Fazit & Ausblick"], "Inhalt")
    assert (
        toc == "## Inhalt\n\n1. [Grenzwerte für Personen](#grenzwerte-für-personen)\n"
        "2. [Fazit & Ausblick](#fazit--ausblick)"
    )
    assert assembly.with_contents("# T\n\n## A\n\nx", toc) == f"# T\n\n{toc}\n\n## A\n\nx"


# -- small-to-large ------------------------------------------------------------------------------------


def chunk(n: int, tokens: int = 10) -> Chunk:
    return Chunk(
        id=f"c{n}", collection="k", document="A.pdf", ordinal=n, text="w " * tokens, start=n * 100,
        end=n * 100 + 2 * tokens, page=1, page_end=1, section=None, heading="",
    )  # fmt: skip


def passage(chunk_id: str, n: int) -> Passage:
    c = chunk(n)
    return Passage(
        chunk_id=chunk_id, collection="k", document="A.pdf", page=1, page_end=1, start=c.start, end=c.end,
        text=c.text, relevance=0.7,
    )  # fmt: skip


def test_neighbours_follow_their_seed_within_the_budget() -> None:
    chunks = [chunk(i) for i in range(6)]

    def count(text: str) -> int:
        return len(text.split())

    seeds = [passage("c2", 2), passage("c3", 3), passage("c5", 5)]
    widened = neighbours(seeds, lambda _c, _d: chunks, count, budget=25)
    assert [p.chunk_id for p in widened] == ["c2", "c1", "c3", "c4", "c5"]
    assert all(p.depth == 0 for p in widened) and widened[1].relevance == 0.7
    assert [p.chunk_id for p in neighbours(seeds, lambda _c, _d: chunks, count, budget=0)] == [
        "c2",
        "c3",
        "c5",
    ]


def test_terminal_outline_editor_commands() -> None:
    sections: list[dict[str, Any]] = [
        {"id": "s1", "title": "A", "research": True, "questions": ["a"]},
        {"id": "s2", "title": "B", "research": True},
    ]
    assert edit_outline(sections, "e 1 Neu")
    assert edit_outline(sections, "t 2") and edit_outline(sections, "a C") and edit_outline(sections, "m 3 1")
    assert [(s["title"], s["research"]) for s in sections] == [("C", True), ("Neu", True), ("B", False)]
    assert "questions" not in sections[1]
    assert edit_outline(sections, "q 2 Welche Grenzwerte? ;  ; Wer überwacht sie?")
    assert sections[1]["questions"] == ["Welche Grenzwerte?", "Wer überwacht sie?"]
    assert edit_outline(sections, "q 2") and sections[1]["questions"] == []
    with pytest.raises(IndexError):
        edit_outline(sections, "q 7 x")
    with pytest.raises(IndexError):
        edit_outline(sections, "d 9")
    with pytest.raises(ValueError):
        edit_outline(sections, "x 1")


def test_a_placeholder_heading_becomes_where_its_evidence_stands_when_the_outline_has_nothing_real() -> None:
    """A weak model's outline: "Section 1" as title, "Section heading" as its question. The heading shown is
    where its evidence stands, not the guards' last resort "Teil 1" (itself a placeholder)."""
    section = SectionSpec(id="s1", title="Section 1", research=True, questions=["Section heading"])
    item = evidence("e1", 0).model_copy(update={"section": "§ 78", "heading": "§ 78 Dosisgrenzwerte"})
    done = result(section, [item], [["e1"]])
    guarded = assembly.guarded_report("Thema", [done], [done.draft], question="Thema", language="de")
    assert [d.heading for _, d in guarded.sections] == ["§ 78 Dosisgrenzwerte"]


def test_a_framing_section_without_a_real_heading_is_named_by_its_place() -> None:
    intro = SectionSpec(id="s1", title="Section 1", research=False, questions=["Section heading"])
    body = SectionSpec(id="s2", title="Grenzwerte", research=True, questions=["Grenzwerte?"])
    outro = SectionSpec(id="s3", title="Sections", research=False)
    done = [result(intro, [], [[]]), result(body, [evidence("e1", 0)], [["e1"]]), result(outro, [], [[]])]
    guarded = assembly.guarded_report("Thema", done, [r.draft for r in done], question="Thema", language="de")
    assert [d.heading for _, d in guarded.sections] == ["Einleitung", "Grenzwerte", "Fazit"]


def test_sections_whose_placeholder_headings_share_a_question_get_different_headings() -> None:
    """A weak outline: three sections named "Section k" with the same first question; only the first may take
    it, the others their next real text (another question, where their evidence stands), never "Teil k"."""
    asked = ["Was sagen die Quellen über Grenzwerte?"]
    specs = [
        SectionSpec(id="s1", title="Section 1", research=True, questions=asked),
        SectionSpec(
            id="s2", title="Section 2", research=True, questions=[*asked, "Wer überwacht die Dosis?"]
        ),
        SectionSpec(id="s3", title="Section 3", research=True, questions=asked),
    ]
    third = evidence("e3", 10).model_copy(update={"section": "§ 80", "heading": "§ 80 Bevölkerung"})
    done = [
        result(specs[0], [evidence("e1", 0)], [["e1"]]),
        result(specs[1], [evidence("e2", 5)], [["e2"]]),
        result(specs[2], [third], [["e3"]]),
    ]
    guarded = assembly.guarded_report("Thema", done, [r.draft for r in done], question="Thema", language="de")
    assert [d.heading for _, d in guarded.sections] == [
        *asked,
        "Wer überwacht die Dosis?",
        "§ 80 Bevölkerung",
    ]


def test_a_section_that_only_repeats_another_keeps_its_place_and_says_where_it_is_stated() -> None:
    said = "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr."
    first = SectionSpec(id="s1", title="Grenzwerte", research=True, questions=["Grenzwerte?"])
    second = SectionSpec(id="s2", title="Berufliche Exposition", research=True, questions=["Wer?"])
    done = [result(first, [evidence("e1", 0)], [["e1"]]), result(second, [evidence("e2", 10)], [["e2"]])]
    drafts = [
        DraftSection(heading="Grenzwerte", claims=[DraftClaim(text=said, evidence_ids=["e1"])]),
        DraftSection(heading="Berufliche Exposition", claims=[DraftClaim(text=said, evidence_ids=["e2"])]),
    ]
    guarded = assembly.guarded_report("Thema", done, drafts, question="Thema", language="de")
    (_, kept), (_, repeat) = guarded.sections
    assert [(c.text, c.evidence_ids) for c in kept.claims] == [(said, ["e1", "e2"])]
    assert repeat.heading == "Berufliche Exposition" and repeat.claims == []
    assert repeat.note == "Was die Dokumente dazu sagen, steht bereits unter „Grenzwerte“."
    markdown = assembly.section_markdown(repeat.heading, [], note=repeat.note)
    assert (
        markdown
        == "## Berufliche Exposition\n\n*Was die Dokumente dazu sagen, steht bereits unter „Grenzwerte“.*"
    )
