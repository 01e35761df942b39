"""A collection of DOCX, HTML and Markdown copies of kb/sample laws, a Word draft and the bad inputs of issue
28, ingested with the real parser, embedder, Chroma and SQLite: the bad files are reported by name with
their reason and the rest is ingested; search finds the copies; the registry and the reference engine treat
them like PDFs (the draft's "§ 7 AtG" reaches AtG.docx's § 7); a research run against the fake Ollama cites
them with quotes verbatim to the stored text."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from fixtures.format_files import (
    DRAFT_NAME,
    write_corrupt_docx,
    write_draft,
    write_encrypted_docx,
    write_large_html,
    write_latin1_markdown,
    write_law_copies,
)
from rabbithole.core.config import load_settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.ingestion.reports import CollectionReport
from rabbithole.references.expansion import TracedPassage
from rabbithole.runs.runner import run_research
from rabbithole.services import Services

COLLECTION = "formate"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, CollectionReport]]:
    root = tmp_path_factory.mktemp("formats")
    folder = root / "kb" / COLLECTION
    folder.mkdir(parents=True)
    write_law_copies(folder)
    write_draft(folder / DRAFT_NAME)
    write_encrypted_docx(folder / "Geheim.docx")
    write_corrupt_docx(folder / "Kaputt.docx")
    write_large_html(folder / "Export.html", 50)
    write_latin1_markdown(folder / "Prüfbericht.md")
    services = Services(load_settings(storage={"data_dir": root / "data"}))
    report = services.ingestion_pipeline().ingest(folder)
    yield services, report.collections[0]
    services.close()


def test_bad_files_are_reported_by_name_and_the_rest_is_ingested(
    ingested: tuple[Services, CollectionReport],
) -> None:
    services, report = ingested
    assert sorted(report.added) == ["AtG.docx", "AtKostV.html", "AtVfV.md", DRAFT_NAME, "Prüfbericht.md"]
    failed = {p.file_name: (p.kind, p.reason) for p in report.failed}
    assert failed["Geheim.docx"][0] == "encrypted"
    assert "password-protected (encrypted) Word document" in failed["Geheim.docx"][1]
    assert failed["Kaputt.docx"][0] == "corrupt" and "damaged DOCX" in failed["Kaputt.docx"][1]
    assert failed["Export.html"][0] == "too_large"
    assert "the limit is 20 MB (ingestion.max_text_file_mb)" in failed["Export.html"][1]
    assert set(failed) == {"Geheim.docx", "Kaputt.docx", "Export.html"}
    warnings = [p for p in report.problems if p.severity == "warning"]
    assert [(w.file_name, w.reason) for w in warnings] == [
        ("Prüfbericht.md", "not UTF-8: read as Windows-1252 / Latin-1 (ISO 8859-1)")
    ]
    kept = {p.file_name for p in services.catalog.problems(COLLECTION) if p.severity == "error"}
    assert kept == set(failed)


def test_search_finds_the_copies_with_their_sections_and_verbatim_offsets(
    ingested: tuple[Services, CollectionReport],
) -> None:
    services, _ = ingested
    result = services.searcher.run(
        "Genehmigung von Anlagen zur Spaltung von Kernbrennstoffen", COLLECTION, k=5
    )
    assert result.hits
    top = result.hits[0].chunk
    assert (top.document, top.section) == ("AtG.docx", "§ 7")
    pages = {p.number: p for p in services.catalog.pages(COLLECTION, "AtG.docx")}
    page = pages[top.page]
    text = "\n\f".join(p.text for p in sorted(pages.values(), key=lambda p: p.number))
    assert text[top.start : top.end] == top.text
    assert page.offset <= top.start < page.offset + len(page.text)
    latin = services.searcher.run("Überprüfung der Strahlenschutzmaßnahmen", COLLECTION, k=3)
    assert latin.hits[0].chunk.document == "Prüfbericht.md"
    assert "Strahlenschutzmaßnahmen" in latin.hits[0].chunk.text


def test_the_registry_and_the_reference_engine_treat_the_copies_like_pdfs(
    ingested: tuple[Services, CollectionReport],
) -> None:
    services, _ = ingested
    registry = services.registry(COLLECTION)
    atg = registry.resolve("AtG")
    assert atg is not None and atg.document == "AtG.docx"
    assert (resolved := registry.resolve("Atomgesetz")) is not None and resolved.document == "AtG.docx"
    engine = services.reference_engine(COLLECTION)
    question = "Welche Genehmigung braucht die Errichtung der Anlage?"
    relevance = engine.passages.relevance(engine.searcher.embed_query(question))
    draft = services.catalog.chunks(COLLECTION, DRAFT_NAME)
    cites = [c for c in draft if "§ 7 AtG" in c.text]
    assert cites, [c.text for c in draft]
    scores = relevance(cites)
    expanded = engine.expander.expand(
        [TracedPassage(c, 0, scores.get(c.id)) for c in cites], relevance, max_depth=1
    )
    reached = [p for p in expanded.passages if (p.chunk.document, p.chunk.section) == ("AtG.docx", "§ 7")]
    assert reached and reached[0].via is not None and reached[0].depth == 1
    assert " ".join(reached[0].via.mention.split()) == "§ 7 AtG"


@pytest_asyncio.fixture
async def research(
    ingested: tuple[Services, CollectionReport], fake_ollama: FakeOllama
) -> AsyncIterator[Services]:
    index, _ = ingested
    settings = index.settings.model_copy(update={"llm": fake_ollama.settings()})
    async with Services(settings, share_with=index) as services:
        yield services


@pytest.mark.asyncio
async def test_a_research_run_cites_the_copies_with_verbatim_quotes(research: Services) -> None:
    result = await run_research(
        research,
        "Wann ist für die Errichtung einer Anlage eine Genehmigung nach dem Atomgesetz nötig?",
        [COLLECTION],
    )
    assert result.status == "done" and result.sources
    for source in result.sources:
        pages = {p.number: p.text for p in research.catalog.pages(source.collection, source.document)}
        assert pages[source.page][source.start : source.end] == source.quote
    documents = {s.document for s in result.sources}
    assert documents <= {"AtG.docx", "AtKostV.html", "AtVfV.md", DRAFT_NAME, "Prüfbericht.md"}
    assert "AtG.docx" in documents
