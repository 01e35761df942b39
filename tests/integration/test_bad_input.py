"""Bad input from outside, tried as a user would: each case ends with a one-line reason on stderr, an exit
code, and the rest of the work done; never a traceback. The CLI runs as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.pdfs import build_head_only_pdf, build_legal_pdf, build_report_pdf


def _run(
    args: list[str], data_dir: Path | None, extra_env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if data_dir is not None:
        env["RABBITHOLE_STORAGE__DATA_DIR"] = str(data_dir)
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "rabbithole", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def _collection(data_dir: Path, name: str) -> dict[str, object]:
    listed = _run(["collections", "--json"], data_dir)
    assert listed.returncode == 0, listed.stderr
    return next(c for c in json.loads(listed.stdout) if c["name"] == name)  # type: ignore[no-any-return]


def test_a_file_name_that_is_not_utf8_is_ingested_and_noted(tmp_path: Path) -> None:
    folder = tmp_path / "laws"
    folder.mkdir()
    build_legal_pdf(folder / "good.pdf")
    odd = Path(os.fsdecode(bytes(folder) + b"/Pr\xfcf.pdf"))
    build_report_pdf(odd)
    data = tmp_path / "data"

    first = _run(["ingest", str(folder), "--quiet"], data)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert "2 added" in first.stderr and "0 failed" in first.stderr
    assert "not valid UTF-8" in first.stderr and "Pr\\xfcf.pdf" in first.stderr
    assert str(folder) not in first.stderr  # no absolute path of a good file reported as damaged

    hits = _run(["search", "stations", "-c", "laws", "--document", "Pr\\xfcf.pdf", "--json"], data)
    assert hits.returncode == 0, hits.stderr
    assert {h["document"] for h in json.loads(hits.stdout)} == {"Pr\\xfcf.pdf"}

    again = _run(["ingest", str(folder), "--quiet"], data)
    assert again.returncode == 0, again.stderr
    assert "0 added, 0 updated, 2 unchanged" in again.stderr


def test_a_pdf_cut_after_its_first_2_kb_is_reported_as_truncated(tmp_path: Path) -> None:
    folder = tmp_path / "laws"
    folder.mkdir()
    build_legal_pdf(folder / "good.pdf")
    build_head_only_pdf(folder / "cut.pdf")
    data = tmp_path / "data"

    result = _run(["ingest", str(folder), "--quiet"], data)
    assert result.returncode == 3, result.stderr  # one file failed, the other is ingested
    assert "Traceback" not in result.stderr
    assert "1 added" in result.stderr and "1 failed" in result.stderr
    problems = _collection(data, "laws")["problems"]
    assert problems == [
        {
            "file": "cut.pdf",
            "kind": "truncated",
            "severity": "error",
            "reason": "truncated PDF (the file ends early); its pages cannot be read "
            "(code=7: Invalid number of pages)",
        }
    ]


def test_links_out_of_the_collection_folder_are_skipped_with_a_reason(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    build_report_pdf(outside / "private.pdf")
    (outside / "more").mkdir()
    build_report_pdf(outside / "more" / "notes.pdf")
    folder = tmp_path / "laws"
    (folder / "sub").mkdir(parents=True)
    build_legal_pdf(folder / "sub" / "good.pdf")
    (folder / "private.pdf").symlink_to(outside / "private.pdf")
    (folder / "more").symlink_to(outside / "more", target_is_directory=True)
    (folder / "inside.pdf").symlink_to(folder / "sub" / "good.pdf")
    (folder / "dangling.pdf").symlink_to(tmp_path / "gone.pdf")
    data = tmp_path / "data"

    result = _run(["ingest", str(folder), "--quiet"], data)
    assert result.returncode == 0, result.stderr  # skipped links are warnings, not failures
    assert "Traceback" not in result.stderr
    assert "2 added" in result.stderr  # sub/good.pdf and the link inside the folder
    collection = _collection(data, "laws")
    assert collection["documents"] == 2
    hits = _run(["search", "stations measurements", "-c", "laws", "--k", "20", "--json"], data)
    assert {h["document"] for h in json.loads(hits.stdout)} <= {"inside.pdf", "sub/good.pdf"}
    kinds = {p["file"]: p["kind"] for p in collection["problems"]}  # type: ignore[attr-defined]
    assert kinds == {"dangling.pdf": "broken_link", "more": "outside_link", "private.pdf": "outside_link"}


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("garbage::", "not a valid URL"),
        ("http://[::1", "not a valid URL"),
        ("127.0.0.1:70000", "not a valid URL"),
        ("http://exa mple.org:11434", "not a valid host name"),
    ],
)
def test_a_malformed_ollama_host_is_a_configuration_error(tmp_path: Path, value: str, why: str) -> None:
    result = _run(
        ["search", "x", "-c", "laws"],
        tmp_path / "data",
        {"OLLAMA_HOST": value, "RABBITHOLE_REFERENCES__DETECTOR": "hybrid"},
    )
    assert result.returncode == 78, result.stderr
    assert "Traceback" not in result.stderr
    assert "OLLAMA_HOST" in result.stderr and why in result.stderr


def test_a_malformed_llm_base_url_names_its_variable(tmp_path: Path) -> None:
    result = _run(["collections"], tmp_path / "data", {"RABBITHOLE_LLM__BASE_URL": "http://[::1"})
    assert result.returncode == 78
    assert "RABBITHOLE_LLM__BASE_URL" in result.stderr and "Traceback" not in result.stderr


def test_an_unusable_data_dir_is_a_configuration_error(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    for data_dir, why in [(a_file, "is not a folder"), (a_file / "below", "is a file, not a folder")]:
        for command in (["collections"], ["serve", "--port", "1"]):
            result = _run(command, data_dir)
            assert result.returncode == 78, (command, result.stderr)
            assert "Traceback" not in result.stderr
            assert "RABBITHOLE_STORAGE__DATA_DIR" in result.stderr and why in result.stderr
            assert "Application startup failed" not in result.stderr


def test_an_unknown_rabbithole_variable_is_warned_about(tmp_path: Path) -> None:
    result = _run(["collections"], tmp_path / "data", {"RABBITHOLE_LLM__MODLE": "qwen3:8b"})
    assert result.returncode == 0, result.stderr
    assert "unknown setting RABBITHOLE_LLM__MODLE is ignored" in result.stderr
    assert "did you mean RABBITHOLE_LLM__MODEL?" in result.stderr


def test_an_unknown_variable_in_dot_env_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("RABBITHOLE_RETRIEVAL__CANDIDATE=10\n", encoding="utf-8")
    result = _run(["collections"], tmp_path / "data", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "RABBITHOLE_RETRIEVAL__CANDIDATE is ignored" in result.stderr
    assert "did you mean RABBITHOLE_RETRIEVAL__CANDIDATES?" in result.stderr
