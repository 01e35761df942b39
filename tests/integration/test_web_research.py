"""Web research over real HTTP against the fake SearxNG and the fixture pages it serves: search -> fetch ->
extract (trafilatura) -> score (the real USE embedder and the question words) -> compressed verbatim
passages whose offsets match the extracted text; every failure mode gives a warning and no evidence."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures.fake_searxng import fake_searxng_fixture, fake_searxng_server_fixture  # noqa: F401
from fixtures.retrieval import use_embedder_fixture  # noqa: F401
from rabbithole.core.config import WebSettings
from rabbithole.devtools.fake_searxng import FakeSearxng, fixture_pages
from rabbithole.embeddings.base import Embedder
from rabbithole.web import WebFindings, WebSearcher, web_evidence_search, web_research

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

DOSE = [
    "Which dose limits apply to occupationally exposed workers?",
    "What is the dose limit for the eye lens?",
]


def searcher(fake: FakeSearxng, embedder: Embedder, **settings: Any) -> WebSearcher:
    return WebSearcher(fake.settings(**settings), embedder)


def assert_verbatim(findings: WebFindings) -> None:
    """Every passage is its page's extracted text at its offsets, and every paragraph of it is on the
    fixture page the server sent."""
    for passage in findings.passages:
        page = findings.pages[passage.page]
        assert page.text[passage.start : passage.end] == passage.quote
        assert passage.url == page.final_url and passage.title == page.title
        served = fixture_pages()[page.final_url.rsplit("/", 1)[-1]].text
        for paragraph in passage.quote.split("\n\n"):
            assert " ".join(paragraph.split()) in served


def assert_nothing_found(findings: WebFindings, *warning: str) -> None:
    assert findings.passages == [] and findings.evidence("s1") == []
    assert any(all(part in w for part in warning) for w in findings.warnings), findings.warnings


async def test_search_fetch_extract_score_compress(fake_searxng: FakeSearxng, use_embedder: Embedder) -> None:
    settings = fake_searxng.settings()
    findings = await web_research(DOSE, "en", searcher=WebSearcher(settings, use_embedder))

    assert findings.warnings == [] and findings.queries == DOSE
    searches = [r for r in fake_searxng.requests if r.startswith("/search")]
    assert len(searches) == 2 and all("format=json" in r and "language=en" in r for r in searches)
    read = {p.final_url.rsplit("/", 1)[-1]: p for p in findings.pages}
    assert "dose-limits.html" in read
    dose_page = read["dose-limits.html"]
    assert dose_page.title == "Occupational dose limits explained"
    for boilerplate in ("cookies", "All rights reserved", "Related articles", "About us"):
        assert boilerplate not in dose_page.text  # the main text only

    assert findings.passages
    assert_verbatim(findings)
    best = findings.passages[0]
    assert best.id == "w1" and best.url.endswith("/dose-limits.html") and "20 millisievert" in best.quote
    scores = [p.score for p in findings.passages]
    assert scores == sorted(scores, reverse=True) and min(scores) >= settings.min_relevance
    assert all("sourdough" not in p.url for p in findings.passages)  # read, but answers nothing
    assert sum(len(p.quote) for p in findings.passages) <= settings.budget_chars
    assert all(len(p.quote) <= settings.passage_chars for p in findings.passages)
    per_page = [p.page for p in findings.passages]
    assert max(per_page.count(i) for i in set(per_page)) <= settings.passages_per_page
    assert {p.question for p in findings.passages} <= set(DOSE)

    evidence = findings.evidence("s2")
    assert [e.id for e in evidence] == [f"s2-w{n}" for n in range(1, len(evidence) + 1)]
    first = evidence[0]
    assert (first.kind, first.collection, first.url, first.title) == ("web", "web", best.url, best.title)
    assert first.quote == best.quote and (first.start, first.end) == (best.start, best.end)
    assert first.document == "127.0.0.1" and first.fetched_at == best.fetched_at and first.task_id == "s2"


async def test_german_question_and_a_small_budget(fake_searxng: FakeSearxng, use_embedder: Embedder) -> None:
    question = ["Wann müssen Strahlenschutzbereiche eingerichtet werden?"]
    findings = await web_research(question, "de", searcher=searcher(fake_searxng, use_embedder))
    assert findings.warnings == [] and findings.passages
    assert_verbatim(findings)
    assert findings.passages[0].url.endswith("/strahlenschutzbereiche.html")
    assert "Strahlenschutzbereiche sind einzurichten" in findings.passages[0].quote

    wide = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder, budget_chars=100_000))
    narrow = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder), budget_chars=400)
    assert 1 <= len(narrow.passages) < len(wide.passages)
    assert sum(len(p.quote) for p in narrow.passages) <= 400
    one_page = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder), max_pages=1)
    assert len(one_page.pages) == 1


async def test_redirects_are_followed_within_the_bound(
    fake_searxng: FakeSearxng, use_embedder: Embedder
) -> None:
    fake_searxng.pin("{base}/redirect/2", "Moved", only=True)
    findings = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder))
    assert findings.warnings == [] and [p.url for p in findings.pages] == [
        fake_searxng.page_url("/redirect/2")
    ]
    assert findings.pages[0].final_url == fake_searxng.page_url("/pages/dose-limits.html")
    assert findings.passages and all(p.url.endswith("/pages/dose-limits.html") for p in findings.passages)
    assert_verbatim(findings)


@pytest.mark.parametrize(
    ("fault", "settings", "warning"),
    [
        ({"status": 500}, {}, ("web search:", "answered HTTP 500")),
        ({"status": 403}, {}, ("web search:", "refused the JSON format")),
        ({"not_json": True}, {}, ("web search:", "did not answer JSON")),
        ({"delay_s": 2.0}, {"search_timeout_s": 0.3}, ("web search:", "did not answer within 0.3 s")),
    ],
    ids=["error", "json-off", "not-json", "slow"],
)
async def test_search_failures_are_warnings(
    fake_searxng: FakeSearxng,
    use_embedder: Embedder,
    fault: dict[str, Any],
    settings: dict[str, Any],
    warning: tuple[str, ...],
) -> None:
    fake_searxng.fail_search(**fault)
    findings = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder, **settings))
    assert_nothing_found(findings, *warning)
    assert findings.pages == [] and len(findings.warnings) == 1  # the same failure of both queries, once


async def test_searxng_down_is_a_warning(use_embedder: Embedder, dead_llm_url: str) -> None:
    web = WebSearcher(WebSettings(searxng_url=dead_llm_url, search_timeout_s=2.0), use_embedder)
    findings = await web_research(DOSE, "en", searcher=web)
    assert_nothing_found(findings, "web search:", f"SearxNG at {dead_llm_url} is not reachable")


@pytest.mark.parametrize(
    ("path", "settings", "warning"),
    [
        ("/binary", {}, "application/pdf is not a web page this reads"),
        ("/huge?size=3000000", {"max_page_bytes": 100_000}, "more than the limit of 100000 bytes"),
        ("/pages/dose-limits.html?delay=3", {"fetch_timeout_s": 0.3}, "no complete answer within 0.3 s"),
        ("/redirect/5", {"max_redirects": 3}, "more than 3 redirects"),
        ("/status/404", {}, "HTTP 404"),
        ("/pages/dose-limits.html", {"allow_private_addresses": False}, "is in the local network"),
        ("/pages/empty.html", {}, "no readable text on the page"),
    ],
    ids=["not-html", "oversized", "slow", "redirects", "missing", "local-network", "no-text"],
)
async def test_page_failures_are_warnings(
    fake_searxng: FakeSearxng, use_embedder: Embedder, path: str, settings: dict[str, Any], warning: str
) -> None:
    fake_searxng.pin("{base}" + path, "A result", only=True)
    findings = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder, **settings))
    assert_nothing_found(findings, "web page skipped:", fake_searxng.page_url(path), warning)
    assert findings.pages == []


async def test_a_bad_page_does_not_stop_the_good_ones(
    fake_searxng: FakeSearxng, use_embedder: Embedder
) -> None:
    fake_searxng.pin("{base}/binary", "A PDF")  # listed first, then the fixture pages
    findings = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder))
    assert findings.warnings == [
        f"web page skipped: {fake_searxng.page_url('/binary')}: application/pdf is not a web page this reads"
    ]
    assert findings.passages and all("/pages/" in p.url for p in findings.passages)
    assert_verbatim(findings)


async def test_nothing_relevant_and_no_results_are_warnings(
    fake_searxng: FakeSearxng, use_embedder: Embedder
) -> None:
    fake_searxng.pin("{base}/pages/sourdough.html", "Sourdough", only=True)
    unrelated = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder))
    assert [p.title for p in unrelated.pages] == ["Baking sourdough bread at home"]
    assert_nothing_found(unrelated, "no passage of the 1 page(s) read reached relevance 0.3")

    fake_searxng.reset()
    fake_searxng.state.only_pinned = True  # SearxNG finds nothing
    empty = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder))
    assert_nothing_found(empty, "web search: no results for", DOSE[0])
    assert await web_research(["  "], "en", searcher=searcher(fake_searxng, use_embedder)) == WebFindings()


async def test_web_evidence_is_cited_as_a_web_source(
    fake_searxng: FakeSearxng, use_embedder: Embedder
) -> None:
    """From the web page to the report: attribution numbers the web evidence like any other, its source
    keeps the address, and the Markdown and the DOCX mark it as a web source."""
    from rabbithole.research.evidence.citations import DraftClaim, DraftSection
    from rabbithole.research.export.docx import render_docx
    from rabbithole.research.synthesis.attribution import build_result

    findings = await web_research(DOSE, "en", searcher=searcher(fake_searxng, use_embedder))
    evidence = findings.evidence("s1")
    claim = DraftClaim(text="Exposed workers may receive 20 mSv a year.", evidence_ids=[evidence[0].id])
    state = {
        "language": "en",
        "question": DOSE[0],
        "sections": [DraftSection(heading="Dose limits", claims=[claim])],
        "task_results": [],
    }
    result = build_result(
        run_id="r1",
        state=state,
        evidence=evidence,
        embed=use_embedder.embed_documents,
        support_threshold=0.35,
    )
    [source] = result.sources
    passage = findings.passages[0]
    assert (source.kind, source.url, source.title, source.fetched_at) == (
        "web",
        passage.url,
        passage.title,
        passage.fetched_at,
    )
    assert (source.quote, source.start, source.end) == (passage.quote, passage.start, passage.end)
    assert f"[1] {passage.title}, {passage.url}, (web)" in result.report_markdown
    text = "\n".join(p.text for p in render_docx(result).paragraphs)
    assert f"[1] {passage.title}, {passage.url}, (web source, fetched " in text
    assert "Exposed workers may receive 20 mSv a year [1]." in text


async def test_evidence_search_for_a_report_section(
    fake_searxng: FakeSearxng, use_embedder: Embedder
) -> None:
    search = web_evidence_search(searcher(fake_searxng, use_embedder))
    evidence, warnings = await search(DOSE, "en", "s3-p0-d0")
    assert warnings == [] and evidence
    assert all(e.kind == "web" and e.task_id == "s3-p0-d0" for e in evidence)
    assert evidence[0].id == "s3-p0-d0-w1" and "20 millisievert" in evidence[0].quote

    fake_searxng.fail_search(status=502)
    evidence, warnings = await search(DOSE, "en", "s3-p0-d1")
    assert evidence == [] and warnings == [f"web search: SearxNG at {fake_searxng.url} answered HTTP 502"]
