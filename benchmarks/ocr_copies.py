"""Scanned copies of the sample knowledge base for the OCR benchmark, and their OCR kept in a cache.

Every page of every sample PDF is rendered at 300 dpi and wrapped as an image-only PDF
(``bench-data/ocr/scans-300/``, rebuilt when missing). Reading 640 pages with Tesseract takes about half an
hour on two loaded cores, so what the parser makes of a scanned copy is kept in ``bench-data/ocr/cache/``,
keyed by the copy's SHA-256, the OCR settings and Tesseract's version: a later run reads the cache, and
any change of the copy (PyMuPDF's rendering), the settings or Tesseract reads the file again. The parser
that ingests the copies (:class:`CachedParser`) answers from the cache, so the index is built by the real
pipeline from the real parser's output.
"""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from benchmarks.common import SAMPLE_DIR, bench_root, sample_pdfs
from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.devtools.scans import scan_pdf
from rabbithole.ingestion.errors import DocumentError
from rabbithole.ingestion.ocr.section_signs import restore_section_signs
from rabbithole.ingestion.parser import AutoParser
from rabbithole.ingestion.structure import detect_structure

DPI = 300


def ocr_root() -> Path:
    root = bench_root() / "ocr"
    root.mkdir(parents=True, exist_ok=True)
    return root


def scanned_copies(dpi: int = DPI, kb: Path = SAMPLE_DIR) -> Path:
    """The folder of image-only copies of ``kb``'s PDFs (made when missing)."""
    folder = ocr_root() / f"scans-{dpi}"
    folder.mkdir(parents=True, exist_ok=True)
    for source in sample_pdfs(kb):
        target = folder / source.name
        if not target.exists():
            partial = target.with_suffix(".part")
            scan_pdf(source, partial, dpi)
            partial.replace(target)
    return folder


def tesseract_version() -> str:
    done = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, check=False)
    return (done.stdout or done.stderr).splitlines()[0] if (done.stdout or done.stderr) else "unknown"


def cache_key(path: Path, settings: IngestionSettings) -> str:
    digest = hashlib.sha256(path.read_bytes())
    digest.update(settings.ocr.model_dump_json().encode())
    digest.update(tesseract_version().encode())
    return digest.hexdigest()


def _cache_file(key: str) -> Path:
    folder = ocr_root() / "cache"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{key}.pickle"


def _parse_and_store(path: Path, key: str, settings: IngestionSettings) -> tuple[str, int, float]:
    started = time.perf_counter()
    try:
        parsed = AutoParser(settings).parse(path)
    except DocumentError as exc:  # reported by name: the exception itself does not cross processes
        raise RuntimeError(f"{path.name}: {exc.reason}") from None
    seconds = time.perf_counter() - started
    cached = _cache_file(key)
    partial = cached.with_suffix(".part")
    partial.write_bytes(pickle.dumps((parsed, seconds)))
    partial.replace(cached)
    return path.name, len(parsed.pages), seconds


def fill_cache(
    folder: Path, settings: IngestionSettings, workers: int = 2, log: Callable[[str], None] = print
) -> float:
    """Read every copy not in the cache yet (``workers`` processes, the largest files first); the OCR
    seconds of the pages read now per page (0 when everything came from the cache)."""
    missing = [
        (path, key)
        for path in sorted(folder.glob("*.pdf"), key=lambda p: -p.stat().st_size)
        if not _cache_file(key := cache_key(path, settings)).exists()
    ]
    if not missing:
        return 0.0
    log(f"reading {len(missing)} scanned copies with Tesseract (once; later runs use the cache) ...")
    pages = 0
    seconds = 0.0
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_parse_and_store, path, key, settings) for path, key in missing]
        for future in futures:
            name, count, took = future.result()
            pages += count
            seconds += took
            log(f"  {name}: {count} pages in {took:.0f} s")
    return seconds / max(1, pages)


class CachedParser:
    """The parser for the scanned copies: what the real parser made of a file, from the cache (filled by
    :func:`fill_cache`); a file not in it is parsed now."""

    def __init__(self, settings: IngestionSettings) -> None:
        self.settings = settings
        self.parser = AutoParser(settings)

    @property
    def suffixes(self) -> tuple[str, ...]:
        return self.parser.suffixes

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        cached = _cache_file(cache_key(path, self.settings))
        if not cached.exists():
            return self.parser.parse(path, file_name)
        parsed, _ = pickle.loads(cached.read_bytes())
        assert isinstance(parsed, ParsedDocument)
        parsed.file_name = file_name or path.name
        if all(page.source == "ocr" for page in parsed.pages):
            # section signs Tesseract misread, restored line by line as the parser now does (same length:
            # offsets and word boxes stay)
            parsed.pages = [
                replace(page, text="\n".join(restore_section_signs(line) for line in page.text.split("\n")))
                for page in parsed.pages
            ]
            # the cache keeps what OCR read (the page texts, word boxes, confidences); the structure is
            # derived again by the current code, as the parser does for lines without font data (their
            # headings judged by their text; Tesseract's paragraphs are the text's blank lines)
            structure = detect_structure(parsed.text)
            parsed.sections = structure.sections
            parsed.is_legal = structure.is_legal or parsed.is_legal
        return parsed


if __name__ == "__main__":
    copies = scanned_copies()
    print(f"{sum(1 for _ in copies.glob('*.pdf'))} copies in {copies}")
    per_page = fill_cache(copies, IngestionSettings.model_validate({}))
    print(f"{per_page:.2f} s per page")
