"""`rabbithole report` as a user runs it: a subprocess against the fake Ollama over the session's sample
index; the outline edited on stdin; closed stdin; a run killed with SIGKILL mid-section and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import docx

from fixtures.cli_runs import cli_env, rabbithole
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.store import RunStore
from rabbithole.services import Services

TOPIC = "Strahlenschutzbereiche und Dosisgrenzwerte"


def env_for(services: Services, fake: FakeOllama) -> dict[str, str]:
    return cli_env(services, fake, RABBITHOLE_REPORT_MODE__REFINEMENT_ROUNDS="0")


def test_outline_edited_in_the_terminal(
    sample_index: Services, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    # rename section 1, toggle research of section 2 off, then approve (an empty line)
    docx_file = tmp_path / "report.docx"
    done = rabbithole(
        ["report", TOPIC, "-c", "sample", "--json", "--depth", "0", "--docx", str(docx_file)],
        env_for(sample_index, fake_ollama),
        "e 1 Grenzwerte im Überblick\nt 2\n\n",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    sections = data["sections"]
    assert sections[0]["title"] == "Grenzwerte im Überblick" and sections[0]["research"]
    assert not sections[1]["research"] and data["status"] == "done"
    assert data["llm_calls"]["frame"] >= 1 and "Outline" in done.stderr
    text = "\n".join(p.text for p in docx.Document(str(docx_file)).paragraphs)
    assert all(s["title"] in text for s in sections) and f"report written to {docx_file}" in done.stderr


def test_closed_stdin_leaves_the_report_waiting(sample_index: Services, fake_ollama: FakeOllama) -> None:
    done = rabbithole(["report", TOPIC, "-c", "sample"], env_for(sample_index, fake_ollama), "")
    assert done.returncode == 75, done.stderr
    assert "rabbithole report --resume" in done.stderr
    run_id = done.stderr.split("rabbithole report --resume ")[1].split()[0]
    wrong = rabbithole(["research", "--resume", run_id], env_for(sample_index, fake_ollama))
    assert wrong.returncode != 0 and f"is a report: rabbithole report --resume {run_id}" in wrong.stderr


def _grades(fake: FakeOllama) -> list[Any]:
    return [r for r in fake.model_requests() if r.schema_name == "SectionGradeJudgement" and r.status == 200]


def test_killed_mid_section_then_resumed(sample_index: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.set_latency(250)
    env = env_for(sample_index, fake_ollama)
    args = ["report", TOPIC, "-c", "sample", "--yes", "--json", "--concurrency", "1", "--depth", "0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "rabbithole", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not _grades(fake_ollama):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the first section was never graded"
        time.sleep(0.05)
    time.sleep(0.6)  # the first section's result is checkpointed; the second one is being researched
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    first = _grades(fake_ollama)[0].prompt.split("\nSection: ")[1].split("\n")[0]

    registry = RunStore(sample_index.settings.storage.catalog_path)
    run = registry.list(limit=1)[0]
    assert run.status == "running" and run.phase == "sections" and run.mode == "report"

    fake_ollama.set_latency(0)
    resumed = rabbithole(["report", "--resume", run.id, "--json"], env)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["status"] == "done" and data["run_id"] == run.id and data["sources"]
    assert first in [s["title"] for s in data["sections"]]
    again = [r for r in _grades(fake_ollama) if f"\nSection: {first}\n" in r.prompt]
    assert len(again) == 1, "the finished section was researched again"
    assert registry.get(run.id).status == "done"
    registry.close()
