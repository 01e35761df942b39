"""Scanned copies of the sample knowledge base for the OCR benchmark, and what Tesseract read on their
pages kept in a cache.

Every page of every sample PDF is rendered at 300 dpi and wrapped as an image-only PDF
(``bench-data/ocr/scans-300/``, rebuilt when missing). Reading 640 pages with Tesseract takes about half an
hour on two loaded cores, so Tesseract's output (its TSV) for each page image is kept in
``bench-data/ocr/tsv/``, keyed by the SHA-256 of the PNG the parser rendered, the languages and Tesseract's
version. Everything else is the product's own code on every run: :class:`CachedParser` is the real parser
with only the Tesseract program call answered from the cache, so a change to how words become lines,
paragraphs, headings and sections (ingestion/ocr, pdf_layout, structure) is measured at once, and a change
to the rendering, the languages or Tesseract reads the pages again.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from benchmarks.common import SAMPLE_DIR, bench_root, sample_pdfs
from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.devtools.scans import scan_pdf
from rabbithole.ingestion.errors import DocumentError
from rabbithole.ingestion.ocr import tesseract
from rabbithole.ingestion.ocr.tesseract import OcrWord, parse_tsv, read_tsv
from rabbithole.ingestion.parser import AutoParser

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


def _tsv_file(png: bytes, languages: str, version: str) -> Path:
    digest = hashlib.sha256(png)
    digest.update(f"\0{languages}\0{version}".encode())
    folder = ocr_root() / "tsv"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{digest.hexdigest()}.tsv"


class _CachedTesseract:
    """``recognise`` with Tesseract's TSV for an image taken from the cache, or read now and stored."""

    def __init__(self) -> None:
        self.version = tesseract_version()
        self.read_now = 0
        self.seconds = 0.0

    def __call__(self, png: bytes, languages: str, timeout_s: float) -> list[OcrWord]:
        cached = _tsv_file(png, languages, self.version)
        if cached.exists():
            return parse_tsv(cached.read_text(encoding="utf-8"))
        started = time.perf_counter()
        tsv = read_tsv(png, languages, timeout_s)
        self.seconds += time.perf_counter() - started
        self.read_now += 1
        partial = cached.with_suffix(".part")
        partial.write_text(tsv, encoding="utf-8")
        partial.replace(cached)
        return parse_tsv(tsv)


@contextmanager
def cached_tesseract() -> Iterator[_CachedTesseract]:
    """The OCR page reader (ingestion/ocr/pages.py) calls Tesseract through the cache while inside (the
    process's other threads too: the benchmark parses one file at a time)."""
    cached = _CachedTesseract()
    with mock.patch.object(tesseract, "recognise", cached):
        yield cached


def _parse_and_cache(path: Path, settings: IngestionSettings) -> tuple[ParsedDocument, int, float]:
    """(what the parser made of one copy, pages read by Tesseract now, their seconds), in a worker."""
    with cached_tesseract() as tesseract:
        try:
            parsed = AutoParser(settings).parse(path)
        except DocumentError as exc:  # reported by name: the exception itself does not cross processes
            raise RuntimeError(f"{path.name}: {exc.reason}") from None
    return parsed, tesseract.read_now, tesseract.seconds


class CachedParser:
    """The real parser for the scanned copies, with Tesseract's output taken from the cache (a page not in
    it is read now). A file parsed once is kept for the run; :meth:`parse_all` parses a folder in worker
    processes first."""

    def __init__(self, settings: IngestionSettings) -> None:
        self.settings = settings
        self.parser = AutoParser(settings)
        self._parsed: dict[Path, ParsedDocument] = {}

    @property
    def suffixes(self) -> tuple[str, ...]:
        return self.parser.suffixes

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        key = path.resolve()
        if key not in self._parsed:
            with cached_tesseract():
                self._parsed[key] = self.parser.parse(path, file_name)
        parsed = self._parsed[key]
        parsed.file_name = file_name or path.name
        return parsed

    def parse_all(self, folder: Path, workers: int = 2, log: Callable[[str], None] = print) -> float:
        """Parse every copy in ``folder`` (``workers`` processes, the largest files first), reading with
        Tesseract the pages not in the cache yet; the Tesseract seconds per page read now (0 when
        everything came from the cache)."""
        paths = sorted(folder.glob("*.pdf"), key=lambda p: -p.stat().st_size)
        read = 0
        seconds = 0.0
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {path: pool.submit(_parse_and_cache, path, self.settings) for path in paths}
            for path, future in futures.items():
                parsed, now, took = future.result()
                self._parsed[path.resolve()] = parsed
                read += now
                seconds += took
                if now:
                    log(f"  {path.name}: {len(parsed.pages)} pages, {now} read by Tesseract in {took:.0f} s")
        return seconds / read if read else 0.0


if __name__ == "__main__":
    copies = scanned_copies()
    print(f"{sum(1 for _ in copies.glob('*.pdf'))} copies in {copies}")
    per_page = CachedParser(IngestionSettings.model_validate({})).parse_all(copies)
    print(f"{per_page:.2f} s per page read now")
