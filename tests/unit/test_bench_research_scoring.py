"""Scoring of the research benchmark (benchmarks/bench_research.py): the dev-set loader, quotes against the
page text, citations against the retrieved set, gold sections, the assessment, and the summary rows."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_research import (  # noqa: E402
    RESEARCH_DEV,
    PageRef,
    ResearchQuestion,
    check_quote,
    check_quotes,
    dev_rows,
    failed_run,
    gold_found,
    load_research_questions,
    outside_citations,
    quick_subset,
    score_run,
)

from rabbithole.research.models import ChainStep, ResearchResult, Source  # noqa: E402

PAGE = "§ 80 Grenzwerte. Der Grenzwert beträgt 1 Millisievert im Kalenderjahr. Weitere Sätze folgen hier."
QUOTE = "Der Grenzwert beträgt 1 Millisievert im Kalenderjahr."
Q_START = PAGE.index(QUOTE)
PAGE_OFFSET = 5000  # where the page starts in the document text


@dataclass(frozen=True)
class FakeChunk:
    document: str
    section: str | None
    start: int
    end: int


def source(n: int = 1, *, quote: str = QUOTE, start: int = Q_START, page: int = 3, **kw: object) -> Source:
    values: dict[str, object] = {
        "n": n,
        "evidence_id": f"t1-e{n}",
        "collection": "sample",
        "document": "StrlSchG.pdf",
        "page": page,
        "section": "§ 80",
        "quote": quote,
        "start": start,
        "end": start + len(quote),
    }
    values.update(kw)
    return Source.model_validate(values)


def result(sources: list[Source], retrieved: list[str], *, answerable: bool = True) -> ResearchResult:
    return ResearchResult(
        run_id="r1",
        question="q",
        language="de",
        status="done",
        answerable=answerable,
        sources=sources,
        retrieved_chunks=retrieved,
        llm_calls={"extract": 3, "synthesize": 1},
    )


PAGES = {("sample", "StrlSchG.pdf", 3): PageRef(PAGE, PAGE_OFFSET)}
# c1 covers the whole page; c2 is another passage of the same document (page 4 on)
C1 = FakeChunk("StrlSchG.pdf", "§ 80", PAGE_OFFSET, PAGE_OFFSET + len(PAGE))
C2 = FakeChunk("StrlSchG.pdf", "§ 81", PAGE_OFFSET + len(PAGE) + 1, PAGE_OFFSET + len(PAGE) + 900)


def test_dev_set_loads_and_is_balanced() -> None:
    questions = load_research_questions(RESEARCH_DEV)
    assert len(questions) >= 20
    langs = {lang: sum(q.lang == lang for q in questions) for lang in ("de", "en")}
    assert min(langs.values()) >= 8 and sum(langs.values()) == len(questions)
    assert sum(not q.answerable for q in questions) >= 2
    assert all(q.gold for q in questions if q.answerable)
    assert any(len(q.gold) >= 3 for q in questions)
    subset = quick_subset(questions)
    assert len({(q.lang, q.kind) for q in subset}) == len(subset)
    assert {(q.lang, q.kind) for q in subset} == {(q.lang, q.kind) for q in questions}


def test_loader_rejects_answerable_without_gold(tmp_path: Path) -> None:
    bad = tmp_path / "dev.yaml"
    bad.write_text(
        "version: 1\nquestions:\n"
        "  - {id: x1, lang: en, kind: single, answerable: true, question: q, gold: []}\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="x1"):
        load_research_questions(bad)


def test_verbatim_quote_passes() -> None:
    check = check_quote(source(), PAGES[("sample", "StrlSchG.pdf", 3)])
    assert check.verbatim and check.reason == ""


@pytest.mark.parametrize(
    ("src", "reason"),
    [
        (source(quote="Der Grenzwert beträgt 1 mSv im Kalenderjahr."), "differs"),  # retyped
        (source(start=Q_START + 1), "differs"),  # offsets shifted by one
        (source(start=len(PAGE) - 5), "outside the page"),
        (source(quote="   ", start=0), "empty"),
        (source(page=9), "no page"),
    ],
)
def test_non_verbatim_quotes_fail(src: Source, reason: str) -> None:
    checks = check_quotes(result([src], ["c1"]), PAGES)
    assert not checks[0].verbatim and reason in checks[0].reason


def test_citation_inside_retrieved_passage() -> None:
    res = result([source()], ["c1", "c2"])
    assert outside_citations(res, {"sample": {"c1": C1, "c2": C2}}, PAGES) == []


def test_citation_outside_when_its_passage_was_not_retrieved() -> None:
    # the lookup holds c1, but the run did not list it as retrieved: outside
    res = result([source()], ["c2"])
    out = outside_citations(res, {"sample": {"c1": C1, "c2": C2}}, PAGES)
    assert [n for n, _ in out] == [1]
    # same document, but a passage that does not contain the quote: outside
    assert len(outside_citations(res, {"sample": {"c2": C2}}, PAGES)) == 1


def test_citation_outside_across_documents_and_collections() -> None:
    other_doc = FakeChunk("AtG.pdf", "§ 7", PAGE_OFFSET, PAGE_OFFSET + len(PAGE))
    res = result([source()], ["c9"])
    assert len(outside_citations(res, {"sample": {"c9": other_doc}}, PAGES)) == 1
    assert len(outside_citations(res, {"other": {"c9": C1}}, PAGES)) == 1


def test_citation_whose_chain_ends_outside_is_counted() -> None:
    chain = [ChainStep(chunk_id="c2", document="StrlSchG.pdf", page=4), ChainStep(
        chunk_id="c7", document="StrlSchG.pdf", page=3)]  # fmt: skip
    res = result([source(chain=chain)], ["c1", "c2"])
    out = outside_citations(res, {"sample": {"c1": C1, "c2": C2}}, PAGES)
    assert len(out) == 1 and "c7" in out[0][1]


def test_gold_found_compares_section_keys() -> None:
    q = ResearchQuestion("x", "en", "broad", True, "q", (("StrlSchG.pdf", "§ 80"), ("StrlSchG.pdf", "§ 78")))
    found, missing = gold_found(q, [("StrlSchG.pdf", "§80"), ("AtG.pdf", "§ 78"), ("StrlSchG.pdf", None)])
    assert found == 1 and missing == [("StrlSchG.pdf", "§ 78")]


def test_score_run_and_rows() -> None:
    q_de = ResearchQuestion("a", "de", "single", True, "q", (("StrlSchG.pdf", "§ 80"),))
    q_en = ResearchQuestion("b", "en", "unanswerable", False, "q", ())
    retrieved = {"sample": {"c1": C1}}
    good = score_run(q_de, "0", result([source()], ["c1"]), retrieved, PAGES, 1.0)
    assert (good.quotes, good.verbatim, good.outside, good.found, good.gold) == (1, 1, 0, 1, 1)
    assert good.assessment_ok and good.calls == 4 and good.problems == []
    # an unanswerable question judged answerable, with a retyped quote
    bad = score_run(q_en, "0", result([source(quote="retyped")], ["c1"]), retrieved, PAGES, 3.0)
    assert not bad.assessment_ok and bad.verbatim == 0 and len(bad.problems) == 2
    rows = {(r[0], r[1]): r for r in dev_rows([good, bad])}
    assert rows[("0", "de")][3] == "1/1" and rows[("0", "de")][4] == 1.0
    assert math.isnan(float(str(rows[("0", "en")][4])))  # no gold sections: no recall
    assert rows[("0", "all")][6] == 0.5  # quotes verbatim
    assert rows[("0", "all")][9] == 0.5  # assessment accuracy


def test_failed_run_counts_as_miss() -> None:
    q = ResearchQuestion("a", "de", "single", True, "q", (("StrlSchG.pdf", "§ 80"),))
    good = score_run(q, "0", result([source()], ["c1"]), {"sample": {"c1": C1}}, PAGES, 2.0)
    failed = failed_run(q, "0", "ContextWindowExceededError: too long")
    assert not failed.finished and failed.gold == 1 and failed.found == 0 and not failed.assessment_ok
    row = next(r for r in dev_rows([good, failed]) if r[1] == "all")
    assert row[3] == "1/2" and row[9] == 0.5 and row[10] == 1  # recall, assessment, failed
    assert row[11] == 4 and row[12] == 2.0  # calls and seconds of finished runs only
