"""MCP over streamable HTTP on the API server (/mcp, a real uvicorn), driven by the official MCP SDK's client:
every tool and resource with the bearer token; without it, or from a foreign Host, the API's guards refuse."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from fixtures.api_server import serving
from fixtures.mcp_client import exercise
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

TOKEN = "mcp-test-token-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def server(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[str]:
    """The API server over the small knowledge base, with a bearer token."""
    settings = run_kb.model_copy(
        update={
            "llm": fake_ollama.settings(),
            "server": run_kb.server.model_copy(update={"token": TOKEN, "warm_up": False}),
        }
    )
    with serving(create_app(settings)) as url:
        yield url


@pytest.mark.asyncio
async def test_a_client_uses_every_tool_and_resource_over_http(server: str) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    async with http, Client(streamable_http_client(f"{server}/mcp", http_client=http)) as client:
        assert client.server_info is not None and client.server_info.name == "rabbithole"
        await exercise(client)


def test_mcp_needs_the_token_and_a_served_host(server: str) -> None:
    for path in ("/mcp", "/mcp/"):
        refused = httpx.post(f"{server}{path}", json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        assert refused.status_code == 401, refused.text
        # GET opens the server's event stream: not the web app, and not without the token either
        assert httpx.get(f"{server}{path}", headers=MCP_HEADERS, timeout=30).status_code == 401
    bearer = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    rebound = httpx.post(
        f"{server}/mcp", json=INITIALIZE, headers={**bearer, "Host": "evil.example"}, timeout=30
    )
    assert rebound.status_code == 400 and "Host" in rebound.text
    accepted = httpx.post(f"{server}/mcp", json=INITIALIZE, headers=bearer, timeout=30)
    assert accepted.status_code == 200, accepted.text
