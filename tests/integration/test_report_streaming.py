"""The report streamed as the model writes it (issue 26, point 3), over real HTTP (uvicorn in a thread, the
fake Ollama streaming its answers): ``draft_text`` events come before the report, a citation is sent with
where it points only for evidence the run retrieved (a model that cites an id it was never shown gets no
link for it), and a stream that breaks off is asked again whole: the run still finishes."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_http import QUICK, wait_for
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from fixtures.sse import Sse, read_stream
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.state import RecordedRequest

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

UNKNOWN_ID = "t9-b9-e9"
_PASSAGE_ID = re.compile(r'<passage id="([^"]+)"')
Server = Callable[[], Any]


@pytest.fixture
def server(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[Server]:
    """``async with server() as (client, url)``: a real uvicorn serving the app over the small KB."""

    @asynccontextmanager
    async def start() -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
        settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
        with serving(create_app(settings)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                yield client, url

    yield start


def shown_ids(request: RecordedRequest) -> list[str]:
    prompt = " ".join(str(m.get("content", "")) for m in request.body.get("messages", []))
    return list(dict.fromkeys(_PASSAGE_ID.findall(prompt)))


async def run_to_end(client: httpx.AsyncClient, url: str) -> tuple[list[Sse], dict[str, Any]]:
    run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
    events = await asyncio.to_thread(read_stream, f"{url}/api/runs/{run_id}/events")
    return events, await wait_for(client, run_id, "done")


async def test_the_report_streams_in_with_links_only_for_retrieved_evidence(
    server: Server, fake_ollama: FakeOllama
) -> None:
    def citing_an_unknown_id(request: RecordedRequest) -> dict[str, Any]:
        """Two sentences: the first cites a passage shown and an id the run never retrieved."""
        shown = shown_ids(request)
        return {
            "claims": [
                {
                    "text": "Die Grenzwerte gelten für beruflich exponierte Personen.",
                    "evidence": [shown[0], UNKNOWN_ID],
                },
                {"text": "Sie werden jährlich überprüft.", "evidence": shown[:1]},
            ]
        }

    asked: list[str] = []

    def answer(request: RecordedRequest) -> Any:
        """The first section call of task t1 cites the unknown id (invalid: it is asked again)."""
        first = shown_ids(request)[0]
        if first.startswith("t1-") and not asked:
            asked.append(first)
            return citing_an_unknown_id(request)
        return generate_instance(request.format, PromptContext.from_messages(request.messages))

    fake_ollama.script(answer, schema="SectionDraft")
    async with server() as (client, url):
        events, detail = await run_to_end(client, url)

    kinds = [e.type for e in events]
    streamed = [e for e in events if e.type == "draft_text"]
    assert streamed, kinds
    report = next(e.id for e in events if e.type == "report")
    assert all(e.id < report for e in streamed)
    # each section's text streams in before the section is sent whole (per pass: remediation rewrites)
    for e in streamed:
        key = (e.data["index"], e.data["attempt"])
        whole = [
            d.id for d in events if d.type == "draft_section" and (d.data["index"], d.data["attempt"]) == key
        ]
        assert whole and e.id < min(whole)
    # every citation points at evidence the run retrieved: its document, page and quote offsets
    result = detail["result"]
    retrieved = {e["id"]: e for e in result["evidence"]}
    cited: dict[str, dict[str, Any]] = {}
    for e in streamed:
        cited.update(e.data["citations"])
    assert cited and set(cited) <= set(retrieved)
    for evidence_id, where in cited.items():
        evidence = retrieved[evidence_id]
        assert (where["document"], where["page"], where["start"], where["end"]) == (
            evidence["document"],
            evidence["page"],
            evidence["start"],
            evidence["end"],
        )
        assert where["quote"] == evidence["quote"] and where["collection"] == evidence["collection"]
    # the unknown id was streamed as the model wrote it, and never became a link
    first = next(e for e in streamed if any(UNKNOWN_ID in c["evidence_ids"] for c in e.data["claims"]))
    assert first.data["task_id"] == "t1" and first.data["claims"][0]["complete"] is True
    assert UNKNOWN_ID not in cited
    # the final report is the checked one: the id the model made up is in none of its sources
    assert all(s["evidence_id"] != UNKNOWN_ID for s in result["sources"])
    assert detail["run"]["status"] == "done" and result["report_markdown"]


async def test_a_stream_that_breaks_off_is_asked_again_whole_and_the_run_finishes(
    server: Server, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.fault("stream_error", schema="SectionDraft", after_chunks=6, times=1)
    with caplog.at_level(logging.INFO, logger="rabbithole.llm.structured"):
        async with server() as (client, url):
            events, detail = await run_to_end(client, url)

    assert detail["run"]["status"] == "done" and detail["result"]["report_markdown"]
    sections = fake_ollama.model_requests()
    broken = [r for r in sections if r.schema_name == "SectionDraft" and "stream_error" in r.faults]
    assert len(broken) == 1
    drafts = [e for e in events if e.type == "draft_section"]
    written = [r for r in sections if r.schema_name == "SectionDraft"]
    # the broken stream cost one request more than the sections written, counted in llm_calls
    assert len(written) == len(drafts) + 1
    assert detail["result"]["llm_calls"]["synthesize"] == len(written)
    kinds = [e.type for e in events]
    assert "report" in kinds and kinds[-1] == "done" and "error" not in kinds
    # asked again at once, without streaming (not after the pause of a transport failure's retry)
    assert sum("asking again without streaming" in r.getMessage() for r in caplog.records) == 1
