"""`rabbithole mcp` over stdio, driven by the official MCP SDK's client as a subprocess: against the fake
Ollama and the small knowledge base (run_kb), and with the model server down."""

from __future__ import annotations

import os
import sys

import pytest
from mcp import Client, StdioServerParameters

from fixtures.api_server import free_port
from fixtures.mcp_client import QUESTION, exercise, failure
from fixtures.run_kb import (
    RUN_COLLECTION,
    own_run_kb,  # noqa: F401 (this module's own run_kb)
)
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

pytestmark = pytest.mark.asyncio


def _server(run_kb: Settings, llm_url: str) -> StdioServerParameters:
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(run_kb.storage.data_dir),
        "RABBITHOLE_LLM__BASE_URL": llm_url,
        "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "rabbithole", "mcp"], env=env)


async def test_a_client_uses_every_tool_and_resource_over_stdio(
    run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    async with Client(_server(run_kb, fake_ollama.url), read_timeout_seconds=120) as client:
        assert client.server_info is not None and client.server_info.name == "rabbithole"
        await exercise(client)


async def test_research_with_the_model_server_down_is_a_clear_tool_error(run_kb: Settings) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    async with Client(_server(run_kb, down), read_timeout_seconds=120) as client:
        message = await failure(client, "start_research", question=QUESTION, collections=[RUN_COLLECTION])
    assert "LLMUnavailableError" in message and down in message
