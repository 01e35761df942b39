"""Parsing a PDF loads pymupdf without the add-ons pymupdf 2 installs and imports on its own (an ONNX layout
analyzer, pymupdf4llm with onnxruntime), which the parser never uses; and the text is the same either way.
Each case runs in a fresh interpreter: the test process has imported pymupdf already (the PDF fixtures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fixtures.pdfs import SAMPLE_DIR

ADDONS = ("pymupdf.layout", "pymupdf4llm", "onnxruntime")
PROBE = """
import hashlib, json, sys
from pathlib import Path
if sys.argv[2] == "preloaded":
    import pymupdf  # another part of the process imported pymupdf first, add-ons and all
from rabbithole.core.config import IngestionSettings
from rabbithole.ingestion.parser import AutoParser
parsed = AutoParser(IngestionSettings()).parse(Path(sys.argv[1]), "AtG.pdf")
digest = hashlib.sha1(json.dumps([(p.number, p.offset, p.text) for p in parsed.pages]).encode()).hexdigest()
loaded = [name for name in sys.argv[3].split(",") if sys.modules.get(name) is not None]
print(json.dumps({"pages": len(parsed.pages), "digest": digest, "loaded": loaded}))
"""


def _parse_in_fresh_process(pdf: Path, how: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(pdf), how, ",".join(ADDONS)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_parsing_skips_pymupdfs_addons_and_extracts_the_same_text() -> None:
    pdf = SAMPLE_DIR / "AtG.pdf"
    lean = _parse_in_fresh_process(pdf, "fresh")
    assert lean["loaded"] == []
    assert isinstance(lean["pages"], int) and lean["pages"] > 10
    # where pymupdf came with its add-ons before the parser ran, the parser uses it as it is
    full = _parse_in_fresh_process(pdf, "preloaded")
    assert "pymupdf.layout" in full["loaded"]  # type: ignore[operator]
    assert full["digest"] == lean["digest"] and full["pages"] == lean["pages"]
