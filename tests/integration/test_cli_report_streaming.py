"""`rabbithole research` prints the report as the model writes it (issue 26, point 3): a subprocess against
the fake Ollama (50 ms per answer) over a small KB of the module's own (its run stays out of the session's
sample index, whose later report runs it would change). Each section's sentences appear on
stderr, with the page of every evidence id the run checked, while the run is still going; the checked
report follows on stdout (``--json`` is unchanged: test_research_cli reads its stdout as one object)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading

from fixtures.run_kb import RUN_COLLECTION, own_run_kb  # noqa: F401 (this module's own run_kb)
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

QUESTION = "Welche Pflichten regelt das PrüfG?"
DRAFT_LINE = re.compile(r"^  ✎ (?P<heading>[^:]+): (?P<text>.+?)(?: \[(?P<pages>[^\]]+)\])?$")


def test_the_draft_is_printed_as_it_is_written_then_the_checked_report(
    run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.set_latency(50)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rabbithole",
            "research",
            QUESTION,
            "-c",
            RUN_COLLECTION,
            "--mode",
            "quick",
            "--yes",
        ],
        env={
            **os.environ,
            "RABBITHOLE_STORAGE__DATA_DIR": str(run_kb.storage.data_dir),
            "RABBITHOLE_LLM__BASE_URL": fake_ollama.url,
            "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
            "COLUMNS": "400",
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout: list[str] = []
    reader = threading.Thread(target=lambda: stdout.append(process.stdout.read() if process.stdout else ""))
    reader.start()
    assert process.stderr is not None
    drafted: list[re.Match[str]] = []
    running_at_first_draft: bool | None = None
    for line in process.stderr:
        match = DRAFT_LINE.match(line.rstrip("\n"))
        if match:
            if running_at_first_draft is None:
                running_at_first_draft = process.poll() is None and not "".join(stdout)
            drafted.append(match)
    assert process.wait(timeout=600) == 0
    reader.join()
    report = "".join(stdout)

    assert drafted and running_at_first_draft  # printed while the run went on, before the report
    assert any(m["pages"] and re.search(r"\.pdf p\. \d+", m["pages"]) for m in drafted)
    assert QUESTION in report and "Quellen" in report
    # the checked report cites the pages the draft showed
    pages = {p.strip() for m in drafted if m["pages"] for p in m["pages"].split(";")}
    assert any(page.split(" p. ")[0] in report for page in pages)
