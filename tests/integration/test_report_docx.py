"""The DOCX export of a run's result: a real quick run against the fake Ollama over the small KB, then the
report downloaded from the API (GET /api/runs/{id}/report.docx), written by the CLI (`--docx FILE`) and
rendered for a report run's result (``sections``) and for web sources; every document is opened again with
python-docx and read back."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from docx import Document as open_docx
from docx.document import Document

from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.export import DOCX_MEDIA_TYPE
from rabbithole.research.export.docx import docx_bytes, write_docx
from rabbithole.research.models import ResearchResult, Source

pytestmark = pytest.mark.timeout(300)

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
QUICK: dict[str, Any] = {
    "question": QUESTION,
    "collections": [RUN_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}


def read(data: bytes) -> Document:
    return open_docx(io.BytesIO(data))


def headings(doc: Document) -> list[str]:
    return [p.text for p in doc.paragraphs if p.style is not None and p.style.name.startswith("Heading")]


def full_text(doc: Document) -> str:
    return "\n".join(p.text for p in doc.paragraphs)


def assert_renders_result(doc: Document, result: ResearchResult) -> None:
    """Title, section headings, every claim's citation numbers, every source's verbatim quote."""
    assert doc.paragraphs[0].style is not None and doc.paragraphs[0].style.name == "Title"
    assert doc.paragraphs[0].text == result.question
    text = full_text(doc)
    assert result.claims and result.sources
    for section in {c.section for c in result.claims if c.section.strip()}:
        assert section.strip() in headings(doc)
    for claim in result.claims:
        if claim.citations:
            assert "".join(f"[{n}]" for n in claim.citations) in text
    assert "Quellen" in headings(doc)  # a German run, German labels
    quotes = [p.text for p in doc.paragraphs if p.style is not None and p.style.name == "Quote"]
    for source in result.sources:
        assert f"„{' '.join(source.quote.split())}“" in quotes
        assert f"[{source.n}] {source.document}, S. {source.page}" in text


@pytest_asyncio.fixture
async def api(run_kb: Settings, fake_ollama: FakeOllama) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(run_kb.model_copy(update={"llm": fake_ollama.settings()}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            yield client


async def finished(client: httpx.AsyncClient, run_id: str) -> ResearchResult:
    while True:
        detail = (await client.get(f"/api/runs/{run_id}")).json()
        status = detail["run"]["status"]
        assert status not in ("error", "cancelled"), detail
        if status == "done":
            return ResearchResult.model_validate(detail["result"])
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_report_docx_over_the_api(api: httpx.AsyncClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.state.latency_ms = 100  # the run is still going when the report is asked for
    run_id = (await api.post("/api/runs", json=QUICK)).json()["run_id"]
    early = await api.get(f"/api/runs/{run_id}/report.docx")
    assert early.status_code == 409 and "not ready" in early.json()["error"]["message"]
    fake_ollama.state.latency_ms = 0
    result = await finished(api, run_id)

    response = await api.get(f"/api/runs/{run_id}/report.docx")
    assert response.status_code == 200
    assert response.headers["content-type"] == DOCX_MEDIA_TYPE
    assert response.headers["content-disposition"] == f'attachment; filename="rabbithole-{run_id}.docx"'
    doc = read(response.content)
    assert_renders_result(doc, result)
    assert doc.core_properties.title == QUESTION and doc.core_properties.language == "de"
    if result.quality is not None:
        assert "Qualität" in headings(doc)
        scores = [[c.text for c in row.cells] for row in doc.tables[0].rows]
        assert ["Belegtreue", str(result.quality.citation_correctness)] in scores

    missing = await api.get("/api/runs/no-such-run/report.docx")
    assert missing.status_code == 404


@pytest.mark.asyncio
async def test_report_mode_sections_and_web_sources(api: httpx.AsyncClient, tmp_path: Path) -> None:
    run_id = (await api.post("/api/runs", json=QUICK)).json()["run_id"]
    result = await finished(api, run_id)

    class ReportResult(ResearchResult):  # the report run's shape: the research result plus sections
        sections: list[dict[str, Any]]

    def cited(text: str, numbers: list[int]) -> str:
        return f"{text} {''.join(f'[{n}]' for n in numbers)}"

    titles = list(dict.fromkeys(c.section for c in result.claims))
    sections = [
        {
            "title": title,
            "research": True,
            "markdown": f"## {title}\n\n"
            + " ".join(cited(c.text, c.citations) for c in result.claims if c.section == title)
            + "\n\n- **Fazit:** ein Punkt",
        }
        for title in titles
    ] + [{"title": "Zusammenfassung", "research": False, "markdown": "Alles *Wesentliche* in Kürze."}]
    web = Source(
        n=len(result.sources) + 1,
        evidence_id="s1-w1",
        collection="web",
        document="example.org",
        page=1,
        quote="Occupational dose limits are 20 mSv per year.",
        start=10,
        end=55,
        kind="web",
        url="https://example.org/limits",
        title="Dose limits",
        fetched_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
    )
    report = ReportResult(
        **{**result.model_dump(exclude={"sections"}), "sources": [*result.sources, web]}, sections=sections
    )
    doc = read(docx_bytes(report))

    listed = [p.text for p in doc.paragraphs if p.style is not None and p.style.name == "List Number"]
    assert listed == [*titles, "Zusammenfassung"]  # the contents
    assert headings(doc).count(titles[0]) == 1  # the section's own heading is not repeated
    assert "Zusammenfassung" in headings(doc)
    text = full_text(doc)
    assert "Fazit: ein Punkt" in text and "Alles Wesentliche in Kürze." in text
    bold = [r.text for p in doc.paragraphs for r in p.runs if r.bold]
    assert "Fazit:" in bold
    for claim in result.claims:
        if claim.citations:
            assert "".join(f"[{n}]" for n in claim.citations) in text
    entry = f"[{web.n}] Dose limits, https://example.org/limits, (Webquelle, abgerufen 2026-01-02 03:04 UTC)"
    assert entry in text
    assert "„Occupational dose limits are 20 mSv per year.“" in text

    broken = report.model_copy(  # control characters a PDF's text layer may carry: left out
        update={"sources": [web.model_copy(update={"quote": "20\x02 mSv\x0c per year"})]}
    )
    assert "„20 mSv per year“" in full_text(read(docx_bytes(broken)))

    written = write_docx(report, tmp_path / "report.docx")
    assert read(written.read_bytes()).paragraphs[0].text == QUESTION


def test_research_cli_writes_docx(run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(run_kb.storage.data_dir),
        "RABBITHOLE_LLM__BASE_URL": fake_ollama.url,
        "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
    }
    target = tmp_path / "bericht.docx"
    args = [QUESTION, "-c", RUN_COLLECTION, "--mode", "quick", "--yes", "--depth", "0", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", "research", *args, "--docx", str(target)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"report written to {target}" in done.stderr
    result = ResearchResult.model_validate_json(done.stdout)
    assert_renders_result(read(target.read_bytes()), result)

    nowhere = tmp_path / "missing" / "bericht.docx"
    refused = subprocess.run(
        [sys.executable, "-m", "rabbithole", "research", *args, "--docx", str(nowhere)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert refused.returncode == 64 and "does not exist" in refused.stderr and not nowhere.exists()
