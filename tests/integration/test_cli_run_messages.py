"""What `rabbithole research` says in the terminal: with the model server down one warning and one error line
(not three warnings and the error twice); `/end` typed again in the plan editor approves the plan."""

from __future__ import annotations

import os

from fixtures.api_server import free_port
from fixtures.cli_runs import rabbithole
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

QUESTION = "Welche Pflichten regelt das PrüfG?"


def _env(run_kb: Settings, llm_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(run_kb.storage.data_dir),
        "RABBITHOLE_LLM__BASE_URL": llm_url,
        "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
    }


def test_ollama_down_is_one_warning_and_one_error(run_kb: Settings) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    done = rabbithole(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--mode", "quick", "--yes"],
        _env(run_kb, down),
        timeout=300,
    )
    assert done.returncode == 70, done.stderr  # RunFailedError: it can be resumed
    lines = done.stderr.splitlines()
    warnings = [line for line in lines if line.startswith("WARNING")]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(warnings) == 1 and "unreachable" in warnings[0], done.stderr
    assert len(errors) == 1 and f"cannot reach Ollama at {down}" in errors[0], done.stderr
    assert "--resume" in errors[0]


def test_end_typed_again_in_the_plan_editor_approves_the_plan(
    run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    done = rabbithole(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--json"],
        _env(run_kb, fake_ollama.url),
        stdin="/end\n/end\n",  # ends clarification, then the same word at the plan
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "not understood" not in done.stderr
    assert "/end: the plan is approved as shown" in done.stderr
    assert '"status": "done"' in done.stdout
