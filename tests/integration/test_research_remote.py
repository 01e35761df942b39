"""`rabbithole research --server URL` as a user runs it: the CLI in a subprocess drives a real uvicorn
server (in this process, on 127.0.0.1) over the small KB, against the fake Ollama. Answers typed on stdin,
a closed stdin that leaves the run waiting (exit 75) and its resumption, the bearer token, and --json equal
in shape to a local run's."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.cli_runs import rabbithole as run_cli
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

pytestmark = pytest.mark.timeout(300)

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
TOKEN = "remote-test-token"


@pytest.fixture
def server(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[str]:
    """A server over the small KB that requires a bearer token."""
    settings = run_kb.model_copy(
        update={
            "llm": fake_ollama.settings(),
            "server": run_kb.server.model_copy(update={"token": TOKEN, "warm_up": False}),
        }
    )
    with serving(create_app(settings)) as url:
        yield url


def rabbithole(
    args: list[str], run_kb: Settings, fake: FakeOllama, stdin: str = "", token: str | None = TOKEN
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(run_kb.storage.data_dir),
        "RABBITHOLE_LLM__BASE_URL": fake.url,
        "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
    }
    env.pop("RABBITHOLE_API_TOKEN", None)
    if token is not None:
        env["RABBITHOLE_API_TOKEN"] = token
    return run_cli(args, env, stdin, timeout=240)


def shape(value: Any) -> Any:
    """The structure of a JSON value: keys and element shapes, no values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


def test_interactive_run_answered_on_stdin(server: str, run_kb: Settings, fake_ollama: FakeOllama) -> None:
    # round 1: an answer; round 2: /end; plan: remove task 2, add a task, approve
    fake_ollama.script(
        {"understanding": "u", "coverage": 0.3, "gaps": ["a", "b", "c"], "questions": ["Welche?", "Wo?"]},
        schema="ClarifyAnalysis",
    )
    answers = "Nur Kontrollbereiche\n/end\nd 2\na Wer legt die Grenzwerte fest?\n\n"
    done = rabbithole(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--markdown", "--depth", "0", "--server", server],
        run_kb,
        fake_ollama,
        answers,
    )
    assert done.returncode == 0, done.stderr
    assert "Clarification, round 1" in done.stderr and "Clarification, round 2" in done.stderr
    assert "Research plan" in done.stderr and "▸ dig" in done.stderr
    run_id = done.stderr.split("run ", 1)[1].split()[0]
    headers = {"Authorization": f"Bearer {TOKEN}"}
    report = httpx.get(f"{server}/api/runs/{run_id}/report", headers=headers).json()
    assert report["status"] == "done"
    assert report["tasks"][-1]["title"] == "Wer legt die Grenzwerte fest?"
    assert done.stdout.strip() == report["report_markdown"].strip()
    answered = [r for r in fake_ollama.model_requests() if r.schema_name == "ClarifyAnalysis"]
    assert "Nur Kontrollbereiche" in json.dumps(answered[-1].messages, ensure_ascii=False)


def test_closed_stdin_leaves_the_run_waiting_then_resume(
    server: str, run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    waiting = rabbithole(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--server", server], run_kb, fake_ollama
    )
    assert waiting.returncode == 75, waiting.stderr
    assert "--resume" in waiting.stderr and f"--server {server}" in waiting.stderr
    run_id = waiting.stderr.split("run ", 1)[1].split()[0]
    headers = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(f"{server}/api/runs/{run_id}", headers=headers).json()["run"]["status"] == (
        "waiting_for_input"
    )

    resumed = rabbithole(
        ["research", "--resume", run_id, "--yes", "--json", "--server", server], run_kb, fake_ollama
    )
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["run_id"] == run_id and data["status"] == "done"

    again = rabbithole(["research", "--resume", run_id, "--server", server], run_kb, fake_ollama)
    assert again.returncode == 65 and "is finished" in again.stderr


def test_quick_json_has_the_shape_of_a_local_run(
    server: str, run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    # one task at a time: which task reads a passage both retrieved (each passage is read once per run) is
    # then the same in both runs, and so are their reports
    args = ["research", QUESTION, "-c", RUN_COLLECTION, "--mode", "quick", "--json", "--depth", "0"]
    args += ["--concurrency", "1"]
    remote = rabbithole([*args, "--server", server], run_kb, fake_ollama)
    assert remote.returncode == 0, remote.stderr
    local = rabbithole(args, run_kb, fake_ollama)
    assert local.returncode == 0, local.stderr
    remote_data, local_data = json.loads(remote.stdout), json.loads(local.stdout)
    assert remote_data["status"] == local_data["status"] == "done"
    assert remote_data["run_id"] != local_data["run_id"]
    assert remote_data["sources"] and shape(remote_data) == shape(local_data)
    assert remote_data["report_markdown"] == local_data["report_markdown"].replace(
        local_data["run_id"], remote_data["run_id"]
    )
    assert "▸ dig" in remote.stderr and "▸ dig" in local.stderr  # the same progress lines


def test_a_server_with_a_token_refuses_a_client_without_it(
    server: str, run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    refused = rabbithole(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--server", server], run_kb, fake_ollama, token=None
    )
    assert refused.returncode == 78, refused.stderr
    assert "wrong token" in refused.stderr and "Authorization: Bearer" in refused.stderr

    gone = rabbithole(["research", "--resume", "no-such-run", "--server", server], run_kb, fake_ollama)
    assert gone.returncode == 66, gone.stderr
