"""LangGraph's Agent Protocol, driven by the real ``langgraph-sdk`` client against a real uvicorn serving the
app over the small KB, the fake Ollama answering: an interactive research run from an empty thread through
the clarification and plan interrupts (answered with ``command: {resume: ...}``) to its report, a second
client joining the running stream with Last-Event-ID, a run refused while another executes
(``multitask_strategy`` reject), a cancelled run, ``wait``, and the threads' state, history and search."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.schema import StreamMode

from fixtures.api_server import serving
from fixtures.run_http import INTERACTIVE, QUICK
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research import llm_step

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

RESEARCH_INPUT = {k: v for k, v in INTERACTIVE.items() if k != "mode"}
ALL_MODES: list[StreamMode] = ["values", "updates", "custom"]
Frame = tuple[str, Any, str | None]


@pytest.fixture
def client_of(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[Any]:
    """``async with client_of() as client``: a ``langgraph-sdk`` client of a real uvicorn serving the app
    (``llm_url``: another Ollama's address; ``token``: the server's token, which the client sends)."""

    @asynccontextmanager
    async def start(llm_url: str | None = None, token: str = "") -> AsyncIterator[LangGraphClient]:
        llm = fake_ollama.settings()
        if llm_url is not None:
            llm = llm.model_copy(update={"base_url": llm_url, "request_timeout_s": 5})
        server = run_kb.server.model_copy(update={"token": token})
        settings = run_kb.model_copy(update={"llm": llm, "server": server})
        headers = {"Authorization": f"Bearer {token}"} if token else None
        with serving(create_app(settings)) as url:
            yield get_client(url=f"{url}/api/langgraph", api_key=None, headers=headers, timeout=60)

    yield start


async def frames(parts: AsyncIterator[Any]) -> list[Frame]:
    return [(part.event, part.data, part.id) async for part in parts]


def interrupts_of(received: list[Frame]) -> list[dict[str, Any]]:
    found = [
        data["__interrupt__"] for event, data, _ in received if event == "updates" and "__interrupt__" in data
    ]
    assert len(found) == 1, received
    return [item["value"] for item in found[0]]


async def test_an_interactive_run_from_thread_to_report(client_of: Any) -> None:
    async with client_of() as client:
        assistants = await client.assistants.search()
        assert sorted(a["graph_id"] for a in assistants) == ["report", "research"]
        research = await client.assistants.get("research")
        assert research["assistant_id"] in {a["assistant_id"] for a in assistants}

        thread = await client.threads.create(metadata={"topic": "Grenzwerte"})
        thread_id = thread["thread_id"]
        assert thread["status"] == "idle"

        received = await frames(
            client.runs.stream(thread_id, "research", input=RESEARCH_INPUT, stream_mode=ALL_MODES)
        )
        assert received[0][0] == "metadata" and received[0][1]["thread_id"] == thread_id
        assert received[-1][0] == "end"
        kinds = {data["type"] for event, data, _ in received if event == "custom"}
        assert {"status", "phase", "interrupt"} <= kinds
        (clarification,) = interrupts_of(received)
        assert clarification["kind"] == "clarification" and clarification["questions"]
        values = [data for event, data, _ in received if event == "values"]
        assert values[-1]["__interrupt__"][0]["value"] == clarification

        state = await client.threads.get_state(thread_id)
        assert [i["value"]["kind"] for i in state["interrupts"]] == ["clarification"]
        assert state["values"]["question"] == INTERACTIVE["question"]
        got = await client.threads.get(thread_id)
        assert got["status"] == "interrupted" and got["metadata"] == {"topic": "Grenzwerte"}

        answered = await frames(
            client.runs.stream(
                thread_id, research["assistant_id"], command={"resume": "/end"}, stream_mode=ALL_MODES
            )
        )
        (plan,) = interrupts_of(answered)
        assert plan["kind"] == "plan" and plan["tasks"]
        assert min(int(i) for _, _, i in answered if i is not None) > max(int(i) for _, _, i in received if i)

        edited = [
            {"id": plan["tasks"][0]["id"], "title": plan["tasks"][0]["title"]},
            {"title": "Ausnahmen nach § 3a"},
        ]
        first: list[Frame] = []
        joined: list[Frame] = []
        after = 0
        joiner = get_client(url=str(client.http.client.base_url), api_key=None, timeout=60)
        async for part in client.runs.stream(
            thread_id, "research", command={"resume": {"tasks": edited}}, stream_mode=ALL_MODES
        ):
            first.append((part.event, part.data, part.id))
            if part.event == "custom" and not joined:  # a second client joins the running stream here
                run_id, after = first[0][1]["run_id"], int(str(part.id))
                joined = await frames(
                    joiner.runs.join_stream(thread_id, run_id, stream_mode=ALL_MODES, last_event_id=part.id)
                )
        assert first[-1][0] == "end" and joined[-1][0] == "end"
        assert joined[0] == first[0]  # metadata
        later = [f for f in first[1:] if f[2] is None or int(f[2]) > after]
        assert [(e, i) for e, _, i in joined[1:]] == [(e, i) for e, _, i in later]
        # a values frame is the state when it is sent (the two clients read it at different moments)
        assert [f for f in joined[1:] if f[0] != "values"] == [f for f in later if f[0] != "values"]
        report = [data for event, data, _ in first if event == "updates" and "report" in data]
        assert len(report) == 1
        final = [data for event, data, _ in first if event == "values"][-1]
        assert final["result"]["report_markdown"] and "__interrupt__" not in final

        replayed = await frames(  # "-1": from the run's start, as useStream's joinStream asks by default
            joiner.runs.join_stream(
                thread_id, first[0][1]["run_id"], stream_mode=ALL_MODES, last_event_id="-1"
            )
        )
        assert [(e, i) for e, _, i in replayed] == [(e, i) for e, _, i in first]
        assert [f for f in replayed if f[0] != "values"] == [f for f in first if f[0] != "values"]

        done = await client.threads.get(thread_id)
        assert done["status"] == "idle" and done["interrupts"] == {}
        runs = await client.runs.list(thread_id)
        assert [r["status"] for r in runs] == ["success", "success", "success"]
        assert (await client.runs.get(thread_id, runs[0]["run_id"]))["run_id"] == runs[0]["run_id"]
        tasks = [t["title"] for t in (await client.threads.get_state(thread_id))["values"]["plan"]]
        assert tasks[-1] == "Ausnahmen nach § 3a"
        assert len(await client.threads.get_history(thread_id, limit=3)) == 3
        found = await client.threads.search(metadata={"topic": "Grenzwerte"})
        assert [t["thread_id"] for t in found] == [thread_id]

        await client.threads.delete(thread_id)
        with pytest.raises(httpx.HTTPStatusError) as gone:
            await client.threads.get(thread_id)
        assert gone.value.response.status_code == 404


async def test_a_busy_thread_refuses_a_second_run_and_a_run_is_cancelled(
    client_of: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.state.latency_ms = 300  # slow enough to act while it runs
    async with client_of() as client:
        thread_id = (await client.threads.create())["thread_id"]
        run = await client.runs.create(thread_id, "research", input={k: v for k, v in QUICK.items()})
        assert run["status"] in ("pending", "running")
        assert (await client.threads.get(thread_id))["status"] == "busy"
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await client.runs.create(
                thread_id, "research", command={"resume": "/end"}, multitask_strategy="reject"
            )
        assert refused.value.response.status_code == 409

        await client.runs.cancel(thread_id, run["run_id"])
        cancelled = await client.runs.get(thread_id, run["run_id"])
        assert cancelled["status"] == "interrupted"
        assert (await client.threads.get(thread_id))["status"] == "idle"
        with pytest.raises(httpx.HTTPStatusError) as again:
            await client.runs.cancel(thread_id, run["run_id"])
        assert again.value.response.status_code == 409


async def test_wait_answers_the_final_values(client_of: Any) -> None:
    async with client_of() as client:
        thread_id = (await client.threads.create())["thread_id"]
        values = await client.runs.wait(thread_id, "research", input=dict(QUICK))
        assert values["result"]["report_markdown"] and values["mode"] == "quick"
        (run,) = await client.runs.list(thread_id)
        assert run["status"] == "success"
        with pytest.raises(httpx.HTTPStatusError) as wrong:
            await client.runs.wait(thread_id, "report", command={"resume": "/end"})
        assert wrong.value.response.status_code == 422


async def test_a_failed_run_streams_its_error(
    client_of: Any, dead_llm_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the product's retries of the unreachable model (as many), without its 1 s and 3 s pauses before them
    monkeypatch.setattr(llm_step, "TRANSIENT_PAUSES", tuple(0.01 for _ in llm_step.TRANSIENT_PAUSES))
    async with client_of(llm_url=dead_llm_url) as client:
        thread_id = (await client.threads.create())["thread_id"]
        received = await frames(client.runs.stream(thread_id, "research", input=dict(QUICK)))
        errors = [data for event, data, _ in received if event == "error"]
        assert len(errors) == 1 and "cannot reach Ollama" in errors[0]["message"], received
        assert received[-1][0] == "end"
        assert (await client.threads.get(thread_id))["status"] == "error"
        assert [r["status"] for r in await client.runs.list(thread_id)] == ["error"]
        assert (await client.runs.wait(thread_id, "research", raise_error=False))["__error__"][
            "error"
        ] == "RunError"


async def test_the_token_guards_the_agent_protocol(client_of: Any) -> None:
    async with client_of(token="s3cret-token") as client:
        assert len(await client.assistants.search()) == 2
        outsider = get_client(url=str(client.http.client.base_url), api_key=None)
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await outsider.assistants.search()
        assert refused.value.response.status_code == 401


async def test_threads_by_id_and_what_is_refused(client_of: Any) -> None:
    async with client_of() as client:
        made = await client.threads.create(thread_id="my-thread-1", metadata={"n": 1})
        assert made["thread_id"] == "my-thread-1" and made["values"] is None
        again = await client.threads.create(thread_id="my-thread-1", if_exists="do_nothing")
        assert again["metadata"] == {"n": 1}
        state = await client.threads.get_state("my-thread-1")
        assert state["values"] == {} and state["interrupts"] == []
        assert await client.threads.get_history("my-thread-1") == []
        refused = [
            client.threads.create(thread_id="my-thread-1"),  # exists (if_exists raise): 409
            client.threads.get("no-such-thread"),  # 404
            client.assistants.get("no-such-assistant"),  # 404
            client.runs.create("my-thread-1", "research"),  # a first run needs an input: 422
            client.runs.create("my-thread-1", "report", input=dict(QUICK)),  # mode quick on the report graph
            client.runs.create("my-thread-1", "research", input=dict(QUICK), stream_mode="messages"),
            client.runs.create(
                "my-thread-1", "research", input=dict(QUICK), context={"depth": 99}
            ),  # settings
        ]
        codes = []
        for call in refused:
            with pytest.raises(httpx.HTTPStatusError) as caught:
                await call
            codes.append(caught.value.response.status_code)
        assert codes == [409, 404, 404, 422, 422, 422, 422]
        with pytest.raises(httpx.HTTPStatusError) as not_served:
            await client.runs.create(
                "my-thread-1", "research", input=dict(QUICK), stream_mode=["values", "events"]
            )
        assert "stream mode 'events' is not served" in not_served.value.response.text
        assert (await client.threads.get("my-thread-1"))["status"] == "idle"
        assert await client.runs.list("my-thread-1") == []
