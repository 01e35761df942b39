"""Starting the CLI imports nothing heavy: an unchanged-folder `rabbithole ingest`, `runs` or `--help`
must not pay for langgraph, Chroma, numpy or the PDF parser, which only the commands that use them load."""

from __future__ import annotations

import json
import subprocess
import sys

# markdown_it, asyncio and rich are not large, but 15-50 ms each of every start-up that needs none of them
# (rich draws progress bars and tables: the commands that show them import it)
HEAVY = (
    "langgraph",
    "langchain_core",
    "chromadb",
    "numpy",
    "torch",
    "fitz",
    "bm25s",
    "scipy",
    "markdown_it",
    "asyncio",
    "rich",
)


def test_the_cli_module_imports_no_heavy_dependency() -> None:
    probe = "import sys, json, rabbithole.cli.main; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert [name for name in HEAVY if name in loaded] == []
