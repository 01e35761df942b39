"""`rabbithole research` and `rabbithole runs` as a user runs them: a subprocess against the fake Ollama over
the session's sample index; answers typed on stdin; a run killed with SIGKILL mid-dig and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

from fixtures.cli_runs import cli_env, rabbithole
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.store import RunStore
from rabbithole.services import Services

QUESTION = "Wann müssen Strahlenschutzbereiche eingerichtet werden?"


def env_for(services: Services, fake: FakeOllama) -> dict[str, str]:
    return cli_env(services, fake)


def test_quick_run_prints_one_json_object(sample_index: Services, fake_ollama: FakeOllama) -> None:
    done = rabbithole(
        ["research", QUESTION, "-c", "sample", "--mode", "quick", "--yes", "--json", "--depth", "1"],
        env_for(sample_index, fake_ollama),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {
        "run_id",
        "question",
        "language",
        "status",
        "report_markdown",
        "sources",
        "tasks",
        "quality",
        "warnings",
        "dropped",
        "llm_calls",
        "citation_stats",
    } <= set(data)
    assert data["status"] == "done" and data["language"] == "de" and data["sources"]
    source = data["sources"][0]
    assert {"n", "document", "page", "section", "quote", "start", "end", "chain", "support"} <= set(source)
    assert "▸ dig" in done.stderr  # progress on stderr

    listed = rabbithole(["runs", "--json"], env_for(sample_index, fake_ollama))
    assert listed.returncode == 0, listed.stderr
    assert data["run_id"] in [r["run_id"] for r in json.loads(listed.stdout)]

    again = rabbithole(["research", "--resume", data["run_id"], "--json"], env_for(sample_index, fake_ollama))
    assert again.returncode == 65 and "is finished" in again.stderr


def test_interactive_run_from_the_terminal(sample_index: Services, fake_ollama: FakeOllama) -> None:
    # round 1: an answer; round 2: /end; plan: remove task 2, add a task, approve
    fake_ollama.script(
        {"understanding": "u", "coverage": 0.3, "gaps": ["a", "b", "c"], "questions": ["Welche?", "Wo?"]},
        schema="ClarifyAnalysis",
    )
    answers = "Nur Kontrollbereiche\n/end\nd 2\na Wer legt die Bereiche fest?\n\n"
    done = rabbithole(
        ["research", QUESTION, "-c", "sample", "--markdown", "--depth", "0"],
        env_for(sample_index, fake_ollama),
        answers,
    )
    assert done.returncode == 0, done.stderr
    assert "Clarification, round 1" in done.stderr and "Clarification, round 2" in done.stderr
    assert "Research plan" in done.stderr
    assert "[1]" in done.stdout
    records = RunStore(sample_index.settings.storage.catalog_path).list(limit=1)
    result = RunStore(sample_index.settings.storage.catalog_path).get(records[0].id).result
    assert result is not None and result.tasks[-1].title == "Wer legt die Bereiche fest?"


def test_closed_stdin_leaves_the_run_waiting(sample_index: Services, fake_ollama: FakeOllama) -> None:
    done = rabbithole(["research", QUESTION, "-c", "sample"], env_for(sample_index, fake_ollama), "")
    assert done.returncode == 75, done.stderr
    assert "--resume" in done.stderr


def _summary_requests(fake: FakeOllama) -> list[Any]:
    return [r for r in fake.model_requests() if r.schema_name == "TaskSummaryDraft" and r.status == 200]


def _calls_after_first_summary(fake: FakeOllama) -> int:
    """Model calls that arrived after the first task summary's (the next task's: the first task is done)."""
    calls = fake.model_requests()
    first = next((i for i, r in enumerate(calls) if r.schema_name == "TaskSummaryDraft"), None)
    return 0 if first is None else len(calls) - first - 1


def test_killed_mid_dig_then_resumed(sample_index: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.set_latency(250)
    env = env_for(sample_index, fake_ollama)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rabbithole",
            "research",
            QUESTION,
            "-c",
            "sample",
            "--mode",
            "quick",
            "--yes",
            "--json",
            "--concurrency",
            "1",
            "--depth",
            "1",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    # a call after the first summary's: the first task's node has returned (the summary is recorded when it
    # arrives, 250 ms before its answer), and the next task is being dug (several 250 ms calls)
    while not _calls_after_first_summary(fake_ollama):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the first task never finished"
        time.sleep(0.05)
    time.sleep(0.3)  # the first task's result is checkpointed
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    first_task = _summary_requests(fake_ollama)[0].messages[-1]["content"].split("\nTask: ")[-1][:60]

    registry = RunStore(sample_index.settings.storage.catalog_path)
    run = registry.list(limit=1)[0]
    assert run.status == "running" and run.phase == "dig"

    fake_ollama.set_latency(0)
    resumed = rabbithole(["research", "--resume", run.id, "--json"], env)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["status"] == "done" and data["run_id"] == run.id and data["sources"]
    assert len(data["tasks"]) >= 3
    again = [r for r in _summary_requests(fake_ollama) if first_task in r.messages[-1]["content"]]
    assert len(again) == 1, "the finished task was dug again"
    assert registry.get(run.id).status == "done"
