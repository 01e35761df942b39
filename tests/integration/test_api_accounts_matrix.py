"""The permission matrix of accounts mode through a real server, on both backends: every route of the API
for the owner, an editor, a reader, a non-member, an administrator, an anonymous client, a disabled account
and a revoked token; the expected status, and nothing of collection "laws" or alice's runs in what a
non-member gets. Lists and the run-list stream show each account its own. The protocols without
per-account permissions (Agent Protocol, MCP) are not served in this mode."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from fixtures.accounts import QUICK_RUN, SECRET_COLLECTION, AccountsWorld
from fixtures.mcp_client import call, failure, read_text, resource_error
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.authorize import CHECKED_PARAMS
from rabbithole.api.main import create_app
from rabbithole.mcp.resources import page_uri, run_report_uri

pytestmark = pytest.mark.timeout(900)

WHO = ("alice", "eddie", "rita", "nora", "adam", None, "dora", "revoked")
#: Expected statuses for, in order: owner, editor, reader, non-member, admin, anonymous, disabled, revoked.
READ = (200, 200, 200, 404, 200, 401, 401, 401)

Request = Callable[[AccountsWorld], tuple[str, str, dict[str, Any]]]


def _get(path: str, **params: Any) -> Request:
    return lambda w: ("GET", path.format(w=w, c=RUN_COLLECTION), {"params": params} if params else {})


READ_ROUTES: dict[str, Request] = {
    "collection": _get("/api/collections/{c}"),
    "documents": _get("/api/collections/{c}/documents"),
    "pages by name": _get("/api/collections/{c}/documents/{w.file_name}/pages"),
    "pdf by name": _get("/api/collections/{c}/documents/{w.file_name}/pdf"),
    "original file by name": _get("/api/collections/{c}/documents/{w.file_name}/file"),
    "page image": _get("/api/collections/{c}/documents/{w.file_name}/pages/1/image", width=200),
    "OCR word boxes": _get("/api/collections/{c}/documents/{w.file_name}/pages/1/boxes", start=0, end=10),
    "document": _get("/api/documents/{w.document_id}"),
    "pages by id": _get("/api/documents/{w.document_id}/pages"),
    "pdf by id": _get("/api/documents/{w.document_id}/pdf"),
    "registry": _get("/api/collections/{c}/registry"),
    "reference graph": _get("/api/collections/{c}/references/graph"),
    "search": _get("/api/search", q="Grenzwerte", collection=RUN_COLLECTION, mode="bm25"),
    "passage references": _get("/api/collections/{c}/passages/{w.chunk_id}/references"),
    "job": _get("/api/jobs/{w.job_id}"),
    "run": _get("/api/runs/{w.run_id}"),
    "report": _get("/api/runs/{w.run_id}/report"),
    "report.md": _get("/api/runs/{w.run_id}/report.md"),
    "report.docx": _get("/api/runs/{w.run_id}/report.docx"),
}


def _answer(world: AccountsWorld, who: str | None, request: Request) -> httpx.Response:
    method, path, kwargs = request(world)
    with world.client(who) as client:
        return client.request(method, path, **kwargs)


def _no_trace_of_laws(world: AccountsWorld, body: bytes, sent: str = "") -> None:
    """Nothing of collection "laws" or alice's runs in ``body``, but what the request ``sent`` itself (an
    error may repeat the id it was asked for)."""
    text = body.decode("utf-8", "replace")
    for trace in (
        world.file_name,
        world.run_id,
        world.private_run_id,
        "PrüfG",
        QUICK_RUN["question"],
        "Grenzwert",
    ):
        if trace not in sent:
            assert trace not in text, (trace, text)


@pytest.mark.parametrize("route", list(READ_ROUTES))
def test_read_routes(accounts_world: AccountsWorld, route: str) -> None:
    for who, expected in zip(WHO, READ, strict=True):
        answer = _answer(accounts_world, who, READ_ROUTES[route])
        assert answer.status_code == expected, (route, who, answer.status_code, answer.text[:300])
        if expected != 200:
            _no_trace_of_laws(accounts_world, answer.content, str(answer.request.url))


@pytest.mark.parametrize("stream_of", ["run", "job"])
def test_the_event_streams(accounts_world: AccountsWorld, stream_of: str) -> None:
    for who, expected in zip(WHO, READ, strict=True):
        if stream_of == "run":
            path = f"/api/runs/{accounts_world.run_id}/events"
        else:
            path = f"/api/jobs/{accounts_world.job_id}/events"
        with accounts_world.client(who) as client, client.stream("GET", path) as stream:
            assert stream.status_code == expected, who
            first = next(stream.iter_lines()) if expected == 200 else stream.read().decode()
            if expected == 200:
                assert first.startswith(("event:", "id:", "data:", ":")), first
            else:
                _no_trace_of_laws(accounts_world, first.encode(), path)


def test_a_private_run_is_its_creators_and_the_admins(accounts_world: AccountsWorld) -> None:
    expected = dict(zip(WHO, (200, 404, 404, 404, 200, 401, 401, 401), strict=True))
    for who, status in expected.items():
        answer = _answer(accounts_world, who, _get(f"/api/runs/{accounts_world.private_run_id}"))
        assert answer.status_code == status, (who, answer.text[:200])
    for who in ("eddie", "rita"):
        with accounts_world.client(who) as client:
            listed = client.get("/api/runs").json()
        assert [r["run_id"] for r in listed["items"]] == [accounts_world.run_id]
        assert listed["total"] == 1


def test_lists_show_each_account_its_own(accounts_world: AccountsWorld) -> None:
    def names(who: str) -> set[str]:
        with accounts_world.client(who) as client:
            return {c["name"] for c in client.get("/api/collections").json()}

    assert names("rita") == {RUN_COLLECTION}
    assert names("nora") == {SECRET_COLLECTION}
    assert {RUN_COLLECTION, SECRET_COLLECTION} <= names("adam")
    with accounts_world.client("nora") as nora:
        runs = nora.get("/api/runs")
        assert runs.status_code == 200 and runs.json()["items"] == [] and runs.json()["total"] == 0
        _no_trace_of_laws(accounts_world, runs.content)
        health = nora.get("/health")
        assert RUN_COLLECTION not in [u["name"] for u in health.json()["unavailable_collections"]]
        assert health.json()["collections"] == 1  # hers
    anonymous = httpx.get(f"{accounts_world.url}/health")  # a load balancer's check: no names, no count
    assert anonymous.status_code == 200
    assert anonymous.json()["collections"] == 0 and anonymous.json()["unavailable_collections"] == []
    with accounts_world.client("adam") as adam:
        ids = {r["run_id"] for r in adam.get("/api/runs").json()["items"]}
    assert {accounts_world.run_id, accounts_world.private_run_id} <= ids


WriteCase = tuple[str, str, dict[str, Any], tuple[int | None, ...]]


def write_cases(world: AccountsWorld) -> list[WriteCase]:
    """(method, path, request, statuses in WHO's order; None: allowed, not tried, as it would change what
    the other tests read). Requests the route refuses after the permission check (a file type not read in
    an upload, a finished run to cancel) show where the check let them through."""
    put = {"json": {"version": 1, "documents": {}}}  # no user registry entries: as the KB was ingested
    sheet = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    upload = {"files": [("files", ("figures.xlsx", b"not a format read", sheet))]}
    laws = f"/api/collections/{RUN_COLLECTION}"
    run = f"/api/runs/{world.run_id}"
    answer = {"json": {"answer": "yes"}}
    return [
        ("PUT", f"{laws}/registry", put, (200, 200, 403, 404, 200, 401, 401, 401)),
        # OCR languages Tesseract has no data for: refused after the permission check, nothing changes
        ("PATCH", laws, {"json": {"ocr_languages": ["fra"]}}, (422, 422, 403, 404, 422, 401, 401, 401)),
        # no document of the collection was read by OCR: nothing to read again
        ("POST", f"{laws}/ocr/reread", {}, (409, 409, 403, 404, 409, 401, 401, 401)),
        ("POST", f"{laws}/documents", upload, (422, 422, 403, 404, 422, 401, 401, 401)),
        ("DELETE", f"{laws}/documents/x.pdf", {}, (404, 404, 403, 404, 404, 401, 401, 401)),
        ("POST", f"{laws}/rebuild", {}, (None, 403, 403, 404, None, 401, 401, 401)),
        ("DELETE", laws, {}, (None, 403, 403, 404, None, 401, 401, 401)),
        ("DELETE", run, {}, (None, 403, 403, 404, None, 401, 401, 401)),
        ("POST", f"{run}/cancel", {}, (409, 403, 403, 404, 409, 401, 401, 401)),
        ("POST", f"{run}/resume", answer, (409, 403, 403, 404, 409, 401, 401, 401)),
        ("POST", "/api/runs", {"json": QUICK_RUN}, (None, None, None, 404, None, 401, 401, 401)),
        ("DELETE", f"/api/documents/{world.document_id}", {}, (None, None, 403, 404, None, 401, 401, 401)),
    ]


def test_writes_need_the_role(accounts_world: AccountsWorld) -> None:
    for method, path, kwargs, statuses in write_cases(accounts_world):
        for who, expected in zip(WHO, statuses, strict=True):
            if expected is None:
                continue  # allowed, and would change what the other tests read
            with accounts_world.client(who) as client:
                answer = client.request(method, path, **kwargs)
            assert answer.status_code == expected, (method, path, who, answer.text[:300])
            if expected in (401, 404):
                _no_trace_of_laws(accounts_world, answer.content, path)


def test_the_installed_ocr_languages_are_shown_to_every_account(accounts_world: AccountsWorld) -> None:
    """No collection's: every signed-in account may ask (a non-member too), no one else."""
    for who, expected in zip(WHO, (200, 200, 200, 200, 200, 401, 401, 401), strict=True):
        answer = _answer(accounts_world, who, _get("/api/ocr/languages"))
        assert answer.status_code == expected, (who, answer.text[:300])
        if expected == 200:
            assert "eng" in answer.json()["installed"]


def test_a_collection_says_whether_the_account_may_change_it(accounts_world: AccountsWorld) -> None:
    """The web app shows the settings' form to those who may use it: the owner, an editor, an admin."""
    for who, may in (("alice", True), ("eddie", True), ("rita", False), ("adam", True)):
        answer = _answer(accounts_world, who, READ_ROUTES["collection"])
        assert answer.json()["may_write"] is may, who


def test_every_api_route_is_in_the_matrix(accounts_world: AccountsWorld) -> None:
    """Every path of the API is tried by a test of this module (a route added later fails this until it
    is): the read routes above, the write cases, and the routes with tests of their own."""
    tried = {READ_ROUTES[name](accounts_world)[1] for name in READ_ROUTES}
    tried |= {path for _, path, _, _ in write_cases(accounts_world)}
    tried |= {f"/api/runs/{accounts_world.run_id}/events", f"/api/jobs/{accounts_world.job_id}/events"}
    tried |= {"/api/runs/events", "/api/collections", "/api/session", "/health", "/api/runs"}
    tried |= {"/api/ocr/languages"}
    templates = create_app(accounts_world.settings).openapi()["paths"]
    untried = [t for t in templates if not any(re.fullmatch(_pattern(t), path) for path in tried)]
    assert untried == []


def _pattern(template: str) -> str:
    return re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))


async def _mcp(world: AccountsWorld, who: str, use: Callable[[Client], Awaitable[None]]) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {world.tokens[who]}"})
    async with http, Client(streamable_http_client(f"{world.url}/mcp", http_client=http)) as client:
        await use(client)


@pytest.mark.asyncio
async def test_mcp_over_http_has_the_permissions(accounts_world: AccountsWorld) -> None:
    """The MCP tools and resources answer each account with what it may see: nora (not a member of
    "laws") gets none of its collections, passages, pages or alice's runs; rita (a reader) does, but not
    alice's private run."""
    w = accounts_world
    page = page_uri(RUN_COLLECTION, w.file_name, 1)

    async def as_nora(client: Client) -> None:
        names = [c["name"] for c in (await call(client, "list_collections"))["result"]]
        assert names == [SECRET_COLLECTION]
        for tool, arguments in (
            ("search", {"query": "Grenzwerte", "collections": [RUN_COLLECTION]}),
            ("trace", {"question": "Grenzwerte", "collection": RUN_COLLECTION}),
            ("resolve_references", {"text": "nach § 3", "collection": RUN_COLLECTION}),
            ("start_research", {"question": "Grenzwerte?", "collections": [RUN_COLLECTION]}),
            ("get_run", {"run_id": w.run_id}),
            ("get_report", {"run_id": w.run_id}),
        ):
            message = await failure(client, tool, **arguments)
            assert "does not exist" in message, (tool, message)
            _no_trace_of_laws(w, message.encode(), w.run_id)
        for uri in (page, run_report_uri(w.run_id)):
            refused = await resource_error(client, uri)
            assert "does not exist" in str(refused), uri

    async def as_rita(client: Client) -> None:
        names = [c["name"] for c in (await call(client, "list_collections"))["result"]]
        assert names == [RUN_COLLECTION]
        found = await call(client, "search", query="Grenzwerte", collections=[RUN_COLLECTION], mode="bm25")
        assert found["results"]
        assert (await call(client, "get_run", run_id=w.run_id))["run"]["run_id"] == w.run_id
        assert await read_text(client, run_report_uri(w.run_id))
        assert await read_text(client, page)
        assert "does not exist" in await failure(client, "get_run", run_id=w.private_run_id)

    await _mcp(w, "nora", as_nora)
    await _mcp(w, "rita", as_rita)
    for who in (None, "dora", "revoked"):  # the HTTP layer refuses them before MCP
        with w.client(who) as client:
            assert (
                client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize"}).status_code
                == 401
            )


LANGGRAPH = "/api/langgraph"


def test_the_agent_protocol_threads_are_runs_with_their_permissions(accounts_world: AccountsWorld) -> None:
    run, private = accounts_world.run_id, accounts_world.private_run_id
    for thread, statuses in ((run, READ), (private, (200, 404, 404, 404, 200, 401, 401, 401))):
        for who, expected in zip(WHO, statuses, strict=True):
            answer = _answer(accounts_world, who, _get(f"{LANGGRAPH}/threads/{thread}"))
            assert answer.status_code == expected, (thread == private, who, answer.text[:200])
            if expected != 200:
                _no_trace_of_laws(accounts_world, answer.content, thread)
    with accounts_world.client("rita") as rita:
        found = {
            t["thread_id"] for t in rita.post(f"{LANGGRAPH}/threads/search", json={"limit": 1000}).json()
        }
        assert run in found and private not in found
        history = rita.post(f"{LANGGRAPH}/threads/{run}/history", json={"limit": 1})
        assert history.status_code == 200  # reading a run she sees, though a POST
        assistant = rita.post(f"{LANGGRAPH}/assistants/search", json={}).json()[0]["assistant_id"]
        answer = {"assistant_id": assistant, "command": {"resume": "/end"}}
        assert rita.post(f"{LANGGRAPH}/threads/{run}/runs", json=answer).status_code == 403  # alice's
        assert rita.delete(f"{LANGGRAPH}/threads/{run}").status_code == 403
    with accounts_world.client("nora") as nora:
        searched = nora.post(f"{LANGGRAPH}/threads/search", json={"limit": 1000})
        assert not {t["thread_id"] for t in searched.json()} & {run, private}
        _no_trace_of_laws(accounts_world, searched.content)
        noras = nora.post(f"{LANGGRAPH}/threads", json={}).json()["thread_id"]
        start = {"assistant_id": assistant, "input": {**QUICK_RUN}}
        refused = nora.post(f"{LANGGRAPH}/threads/{noras}/runs", json=start)
        assert refused.status_code == 404 and refused.json()["error"]["type"] == "CollectionNotFoundError"
        assert (
            nora.post(f"{LANGGRAPH}/threads", json={"thread_id": run, "if_exists": "do_nothing"}).status_code
            == 404
        )
    with accounts_world.client("rita") as rita:
        assert rita.get(f"{LANGGRAPH}/threads/{noras}").status_code == 404  # nora's thread, not started
        assert noras not in {t["thread_id"] for t in rita.post(f"{LANGGRAPH}/threads/search", json={}).json()}
    with accounts_world.client("adam") as adam:
        assert adam.get(f"{LANGGRAPH}/threads/{noras}").status_code == 200


def test_the_run_list_stream_shows_each_account_its_own(accounts_world: AccountsWorld) -> None:
    """nora listens, alice starts a run, then nora starts one: nora's stream gets hers and nothing of
    alice's before it (changes are sent in order)."""
    got: list[dict[str, Any]] = []
    ready, done = threading.Event(), threading.Event()

    def listen() -> None:
        with accounts_world.client("nora") as nora, nora.stream("GET", "/api/runs/events") as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    change = json.loads(line.removeprefix("data:").strip())
                    if change["change"] == "ready":
                        ready.set()
                        continue
                    got.append(change)
                    if change["run_id"] == accounts_world.extra.get("noras_run"):
                        done.set()
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert ready.wait(60)
    with accounts_world.client("alice") as alice:
        alices = alice.post("/api/runs", json=QUICK_RUN).json()["run_id"]
    with accounts_world.client("nora") as nora:
        answer = nora.post("/api/runs", json={**QUICK_RUN, "collections": [SECRET_COLLECTION]})
        assert answer.status_code == 201, answer.text
        accounts_world.extra["noras_run"] = answer.json()["run_id"]
    assert done.wait(120)
    assert got and alices not in {c["run_id"] for c in got}
    assert {c["run_id"] for c in got} == {accounts_world.extra["noras_run"]}


def _route_paths(routes: list[Any], prefix: str = "") -> list[str]:
    """Every route path of the app, through the routers it includes."""
    paths: list[str] = []
    for route in routes:
        if hasattr(route, "original_router"):
            context = getattr(route, "include_context", None)
            paths += _route_paths(route.original_router.routes, prefix + str(getattr(context, "prefix", "")))
        elif isinstance(getattr(route, "path", None), str):
            paths.append(prefix + route.path)
    return paths


def test_every_path_parameter_has_its_check(accounts_world: AccountsWorld) -> None:
    """api/authorize.py refuses a route whose parameters it does not know (deny by default); none of
    today's routes has one, the Agent Protocol's included."""
    paths = _route_paths(create_app(accounts_world.settings).routes)
    assert any("{thread_id}" in p for p in paths) and any("{document_id}" in p for p in paths)
    parameters = {name for path in paths for name in re.findall(r"\{(\w+)", path)}
    assert parameters <= CHECKED_PARAMS, parameters - CHECKED_PARAMS
