"""Tesseract, the program: the languages it has data for here, whether it can read the configured ones, and
one image read into words with their boxes and confidences (its TSV output).

The command-line program is run once per page image (PNG on stdin) with OMP_THREAD_LIMIT=1: Tesseract's own
threads only contend with the other pages' and the embedder's work (2.45 s a page at 300 dpi with one thread
against 11.5 s with its default threads on a loaded two-core machine; docs/benchmarks.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

#: what to run where Tesseract or its language data is missing (Debian/Ubuntu; `make setup` runs it as root)
INSTALL_COMMAND = "sudo apt-get install -y tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng (or: make setup)"
#: what `tesseract --list-langs` lists beside the languages: orientation and script detection, no language
NOT_LANGUAGES = frozenset({"osd"})


@dataclass(frozen=True, slots=True)
class OcrWord:
    """One word Tesseract read: its text, its box in pixels of the image, its confidence (0-100), and the
    block, paragraph and line it belongs to."""

    text: str
    left: int
    top: int
    width: int
    height: int
    confidence: float
    block: int
    paragraph: int
    line: int


class TesseractError(Exception):
    """Tesseract cannot be used: not installed or not runnable, or it failed on an image (crashed, timed
    out, or gave output that is not its TSV). The message says why, and the fix where there is one."""


def installed_languages() -> tuple[str, ...]:
    """The languages Tesseract has data for here, sorted (`tesseract --list-langs` without osd). Asked each
    time (a few milliseconds), so data installed while the server runs counts at once. TesseractError, with
    the command that fixes it, when Tesseract is not installed or cannot be run."""
    binary = shutil.which("tesseract")
    if binary is None:
        raise TesseractError(f"Tesseract is not installed; install it with: {INSTALL_COMMAND}")
    try:
        listed = subprocess.run(
            [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TesseractError(
            f"Tesseract cannot be run ({exc}); reinstall it with: {INSTALL_COMMAND}"
        ) from exc
    codes = {line.strip() for line in listed.stdout.splitlines()[1:] if line.strip()}
    return tuple(sorted(codes - NOT_LANGUAGES))


def unavailable_reason(languages: tuple[str, ...]) -> str | None:
    """Why OCR in these languages cannot run here (with the command that fixes it), or None when it can."""
    try:
        installed = installed_languages()
    except TesseractError as exc:
        return str(exc)
    missing = [code for code in languages if code not in installed]
    if missing:
        packages = " ".join(f"tesseract-ocr-{code.replace('_', '-')}" for code in missing)
        fix = f"sudo apt-get install -y {packages}"
        return f"Tesseract has no data for {', '.join(missing)}; install it with: {fix}"
    return None


def recognise(png: bytes, languages: str, timeout_s: float) -> list[OcrWord]:
    """The words Tesseract reads on a PNG image, in its reading order (block, paragraph, line, word)."""
    return parse_tsv(read_tsv(png, languages, timeout_s))


def read_tsv(png: bytes, languages: str, timeout_s: float) -> str:
    """Tesseract's TSV output for a PNG image (page segmentation 3: automatic, no orientation detection)."""
    binary = shutil.which("tesseract")
    if binary is None:
        raise TesseractError(f"Tesseract is not installed; install it with: {INSTALL_COMMAND}")
    environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(
            [binary, "stdin", "stdout", "-l", languages, "--psm", "3", "tsv"],
            input=png,
            capture_output=True,
            timeout=timeout_s,
            env=environment,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise TesseractError(f"Tesseract took longer than {timeout_s:g} s") from exc
    except OSError as exc:
        raise TesseractError(f"Tesseract cannot be run ({exc})") from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise TesseractError(f"Tesseract failed ({detail[-1] if detail else f'exit {done.returncode}'})")
    return done.stdout.decode("utf-8", "replace")


def parse_tsv(tsv: str) -> list[OcrWord]:
    """Words of Tesseract's TSV (level 5 rows with text); the header and the layout rows are skipped."""
    words: list[OcrWord] = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5" or not cells[11].strip():
            continue
        try:
            block, paragraph, line = int(cells[2]), int(cells[3]), int(cells[4])
            left, top, width, height = (int(c) for c in cells[6:10])
            confidence = float(cells[10])
        except ValueError as exc:
            raise TesseractError(f"Tesseract's output cannot be read ({row[:80]!r})") from exc
        words.append(
            OcrWord(cells[11].strip(), left, top, width, height, max(0.0, confidence), block, paragraph, line)
        )
    return words
