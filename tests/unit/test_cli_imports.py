"""Starting the CLI imports nothing heavy: an unchanged-folder `rabbithole ingest`, `runs` or `--help`
must not pay for langgraph, Chroma, numpy or the PDF parser, which only the commands that use them load."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("langgraph", "langchain_core", "chromadb", "numpy", "torch", "fitz", "bm25s", "scipy", "markdown_it")


def test_the_cli_module_imports_no_heavy_dependency() -> None:
    probe = "import sys, json, rabbithole.cli.main; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert [name for name in HEAVY if name in loaded] == []
