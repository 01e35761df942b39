"""A collection's OCR languages from the command line: `rabbithole ingest --ocr-languages` (refused with
the installed languages for one Tesseract has no data for), `rabbithole collections NAME --ocr-languages`,
the documents read in other languages counted, `--reread-ocr` reading them again, the setting kept through
`ingest --reindex`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.api_server import server_env
from fixtures.cli_runs import rabbithole
from fixtures.pdfs import SAMPLE_DIR
from rabbithole.devtools.scans import scan_pdf

pytestmark = pytest.mark.timeout(600)


def _shown(env: dict[str, str]) -> dict[str, Any]:
    listed = rabbithole(["collections", "scans", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    (collection,) = json.loads(listed.stdout)
    return {k: collection[k] for k in ("ocr_languages", "ocr_languages_own", "ocr_read_otherwise")}


def test_the_ocr_languages_of_a_collection_from_the_command_line(tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    scan_pdf(SAMPLE_DIR / "AtG.pdf", folder / "page.pdf", 200, pages=[1])
    env = server_env(tmp_path / "data")

    refused = rabbithole(["ingest", str(folder), "--ocr-languages", "eng,fra", "-q"], env)
    assert refused.returncode == 64
    assert "'fra'" in refused.stderr and "installed: deu, eng" in refused.stderr
    assert rabbithole(["collections", "--json"], env).stdout.strip() == "[]"  # nothing was created

    ingested = rabbithole(["ingest", str(folder), "--ocr-languages", "eng", "-q"], env)
    assert ingested.returncode == 0, ingested.stderr
    assert _shown(env) == {"ocr_languages": ["eng"], "ocr_languages_own": True, "ocr_read_otherwise": []}

    changed = rabbithole(["collections", "scans", "--ocr-languages", "deu+eng"], env)
    assert changed.returncode == 0, changed.stderr
    assert "OCR in deu+eng (its own); 1 document read by OCR in other languages" in changed.stdout
    assert "rabbithole collections scans --reread-ocr" in changed.stdout

    reread = rabbithole(["collections", "scans", "--reread-ocr", "-q", "--json"], env)
    assert reread.returncode == 0, reread.stderr
    assert "1 updated" in reread.stderr
    assert json.loads(reread.stdout)[0]["ocr_read_otherwise"] == []
    nothing = rabbithole(["collections", "scans", "--reread-ocr", "-q"], env)
    assert nothing.returncode == 65 and "no document of collection 'scans'" in nothing.stderr

    no_name = rabbithole(["collections", "--ocr-languages", "deu"], env)
    assert no_name.returncode == 64 and "need the collection's NAME" in no_name.stderr
    unknown = rabbithole(["collections", "scans", "--ocr-languages", "osd"], env)
    assert unknown.returncode == 64 and "'osd' is not a Tesseract language code" in unknown.stderr

    again = rabbithole(["ingest", str(folder), "--reindex", "-q"], env)
    assert again.returncode == 0, again.stderr
    assert _shown(env) == {
        "ocr_languages": ["deu", "eng"],
        "ocr_languages_own": True,
        "ocr_read_otherwise": [],
    }

    default = rabbithole(["collections", "scans", "--ocr-languages", "default", "--json"], env)
    assert default.returncode == 0, default.stderr
    (collection,) = json.loads(default.stdout)
    assert collection["ocr_languages"] == ["deu", "eng"] and collection["ocr_languages_own"] is False
    assert collection["ocr_read_otherwise"] == []  # read in deu+eng, the default's languages
