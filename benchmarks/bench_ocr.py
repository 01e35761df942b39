"""OCR (issue 28): how well and how fast Tesseract reads scanned copies of the sample knowledge base, and
what retrieval loses when the scans are ingested in place of the born-digital PDFs.

Scanned copies are made from kb/sample (benchmarks/ocr_copies.py: every page rendered in grey and wrapped
as an image-only PDF; nothing checked in). Each figure stands beside its baseline in the same run:

* character error rate (CER) of OCR against the PDF's own text layer, on sample pages (the middle page of
  each sample PDF) at 300 and 150 dpi: Rabbithole's route (the page rendered by PyMuPDF, read by the
  ``tesseract`` program, TSV with word boxes and confidences, one thread) beside PyMuPDF's built-in OCR
  (``Page.get_textpage_ocr``, the same Tesseract data) on the same pages; and over the whole corpus at
  300 dpi (the parser's page texts of the copies against those of the originals). CER is the Levenshtein
  distance of the texts with runs of whitespace made one space, over the text layer's length.
* OCR pages per minute on this machine, both routes, on the sample pages.
* hybrid recall@5 (benchmarks/data/retrieval_dev.yaml) and ``trace`` recall (the reference chains' dev
  questions, benchmarks/data/reference_chains.yaml) with the scanned copies ingested in place of the
  originals (the same file names), against the originals' index.

Goals: CER at 300 dpi at most 2 % (sample pages and the whole corpus); recall of the scans within 0.03 of
the originals' (hybrid recall@5 and trace). Reading all 640 pages takes about half an hour (or more on a
loaded machine); Tesseract's output is cached by page image in bench-data/ocr/tsv (ocr_copies.py), so only
the first run pays it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein

from benchmarks.common import (
    SAMPLE_COLLECTION,
    SAMPLE_DIR,
    Goal,
    bench_settings,
    ensure_sample_index,
    fingerprint,
    load_dev_questions,
    machine_info,
    print_goals,
    print_table,
    rel,
    sample_pdfs,
    stopwatch,
)
from benchmarks.ocr_copies import CachedParser, ocr_root, scanned_copies, tesseract_version
from rabbithole.core.config import IngestionSettings
from rabbithole.devtools.scans import pymupdf
from rabbithole.ingestion.ocr.lines import mean_confidence
from rabbithole.ingestion.ocr.tesseract import recognise

CER_GOAL = 0.02
RECALL_GAP_GOAL = 0.03
TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"


def squeezed(text: str) -> str:
    return " ".join(text.split())


def cer(reference: str, read: str) -> tuple[int, int]:
    """(edit distance, reference length) of the squeezed texts."""
    ref, got = squeezed(reference), squeezed(read)
    return Levenshtein.distance(ref, got), len(ref)


@dataclass(slots=True)
class RouteFigures:
    errors: int = 0
    length: int = 0
    seconds: float = 0.0
    pages: int = 0
    confidence: float = 0.0

    @property
    def rate(self) -> float:
        return self.errors / max(1, self.length)

    @property
    def per_minute(self) -> float:
        return 60.0 * self.pages / max(1e-9, self.seconds)


def _tesseract_route(page: Any, dpi: int, languages: str) -> tuple[str, float]:
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    words = recognise(pixmap.tobytes("png"), languages, 300.0)
    return " ".join(w.text for w in words), mean_confidence(words)


def _pymupdf_route(page: Any, dpi: int, languages: str) -> tuple[str, float]:
    textpage = page.get_textpage_ocr(language=languages, dpi=dpi, full=True, tessdata=TESSDATA)
    return str(page.get_text(textpage=textpage)), 0.0


def sample_pages() -> list[tuple[Path, int]]:
    """The middle page of each sample PDF."""
    chosen: list[tuple[Path, int]] = []
    for pdf in sample_pdfs(SAMPLE_DIR):
        with pymupdf.open(str(pdf)) as doc:
            chosen.append((pdf, doc.page_count // 2))
    return chosen


def page_cer(
    pages: Sequence[tuple[Path, int]], dpis: Sequence[int], languages: str
) -> dict[tuple[str, int], RouteFigures]:
    """Both routes on image-only copies of the pages (rendered at each dpi), against the text layer."""
    routes: dict[str, Callable[[Any, int, str], tuple[str, float]]] = {
        "tesseract TSV (Rabbithole)": _tesseract_route,
        "PyMuPDF get_textpage_ocr (baseline)": _pymupdf_route,
    }
    figures = {(route, dpi): RouteFigures() for route in routes for dpi in dpis}
    for pdf, index in pages:
        with pymupdf.open(str(pdf)) as doc:
            source = doc[index]
            reference = source.get_text()
            for dpi in dpis:
                pixmap = source.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
                with pymupdf.open() as scan:
                    page = scan.new_page(width=source.rect.width, height=source.rect.height)
                    page.insert_image(page.rect, stream=pixmap.tobytes("png"))
                    for route, read in routes.items():
                        started = time.perf_counter()
                        text, confidence = read(page, dpi, languages)
                        seconds = time.perf_counter() - started
                        errors, length = cer(reference, text)
                        f = figures[(route, dpi)]
                        f.errors += errors
                        f.length += length
                        f.seconds += seconds
                        f.pages += 1
                        f.confidence += confidence
    return figures


def corpus_cer(copies: Path, parser: CachedParser) -> tuple[RouteFigures, list[list[object]]]:
    """The parser's page texts of every scanned copy against the originals'."""
    from rabbithole.ingestion.parser import AutoParser

    total = RouteFigures()
    rows: list[list[object]] = []
    originals = AutoParser(parser.settings)
    for pdf in sample_pdfs(SAMPLE_DIR):
        original = originals.parse(pdf)
        scanned = parser.parse(copies / pdf.name)
        errors = length = 0
        for before, after in zip(original.pages, scanned.pages, strict=True):
            e, n = cer(before.text, after.text)
            errors += e
            length += n
        confidences = [p.ocr_confidence or 0.0 for p in scanned.pages if p.source == "ocr"]
        rows.append([pdf.name, len(scanned.pages), f"{errors / max(1, length):.4f}",
                     f"{sum(confidences) / max(1, len(confidences)):.1f}",
                     f"{len(original.sections)} / {len(scanned.sections)}"])  # fmt: skip
        total.errors += errors
        total.length += length
        total.pages += len(scanned.pages)
    return total, rows


def scanned_index(copies: Path, parser: CachedParser) -> Path:
    """A data dir with the scanned copies ingested as collection "sample" (through the cached parser); built
    again when what the parser makes of them (texts, sections) or the settings change."""
    from rabbithole.services import Services

    names = sorted(p.name for p in copies.glob("*.pdf"))
    parsed = [parser.parse(copies / name) for name in names]
    made = [(d.text, [(s.label, s.heading, s.path, s.start, s.end) for s in d.sections]) for d in parsed]
    key = fingerprint(tesseract_version(), parser.settings.model_dump(), names, made)
    data_dir = ocr_root() / f"index-{key}"
    with Services(bench_settings(data_dir)) as services:
        pipeline = services.ingestion_pipeline()
        # every collection read by the cached parser (not one made for the collection's OCR languages: the
        # sample collection has none of its own, so the default languages the cache was filled in)
        pipeline.parser, pipeline.parser_in = parser, None
        report = pipeline.ingest(copies, collection=SAMPLE_COLLECTION).collections[0]
        if report.failed:
            raise SystemExit(f"bench_ocr: scanned copies not ingested: {report.failed}")
    return data_dir


def hybrid_recall(data_dir: Path) -> float:
    from benchmarks.bench_quality import Ranked, first_gold_rank, recall
    from rabbithole.services import Services

    ranked: list[Ranked] = []
    with Services(bench_settings(data_dir)) as services:
        for question in load_dev_questions():
            result = services.searcher.run(question.question, SAMPLE_COLLECTION, k=10, mode="hybrid")
            hits = [(h.chunk.document, h.chunk.section) for h in result.hits]
            ranked.append(Ranked(question, "current", "hybrid", first_gold_rank(question, hits)))
    return recall(ranked, 5)


def trace_recall(data_dir: Path) -> float:
    from benchmarks.bench_references import SUBSETS, _share, load_questions, subset
    from rabbithole.references.expansion import ExpansionLimits
    from rabbithole.references.tracing import ReferenceEngine
    from rabbithole.services import Services

    questions = subset(load_questions(), SUBSETS[0][1])
    with Services(bench_settings(data_dir)) as services:
        references = services.settings.references
        pairs = []
        for q in questions:
            engine = ReferenceEngine(
                SAMPLE_COLLECTION,
                searcher=services.searcher,
                catalog=services.catalog,
                vectors=services.store.open(SAMPLE_COLLECTION),
                registry=services.registry(SAMPLE_COLLECTION),
                settings=references,
                limits=ExpansionLimits.from_settings(references),
            )
            result = engine.trace(q.text, depth=references.max_depth)
            pairs.append((q, {(p.chunk.document, p.chunk.section) for p in result.passages}))
    return _share(pairs)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.common import base_parser

    parser = base_parser(__doc__)
    args = parser.parse_args(argv)
    settings = IngestionSettings.model_validate({})
    languages = settings.ocr.language_spec
    print(f"machine: {machine_info()}; {tesseract_version()}; languages {languages}")

    pages = sample_pages()[:4] if args.quick else sample_pages()
    with stopwatch() as watch:
        figures = page_cer(pages, (300, 150), languages)
    rows = [
        [route, dpi, f.pages, f"{f.rate:.4f}", f"{f.per_minute:.1f}"] for (route, dpi), f in figures.items()
    ]
    print_table(
        ["route", "dpi", "pages", "CER", "pages/min"],
        rows,
        title=f"OCR of sample pages (the middle page of each sample PDF) against the text layer "
        f"({watch.seconds:.0f} s):",
    )
    ours = figures[("tesseract TSV (Rabbithole)", 300)]
    base = figures[("PyMuPDF get_textpage_ocr (baseline)", 300)]
    goals = [
        Goal(
            f"CER at 300 dpi <= {CER_GOAL:.0%}, sample pages",
            ours.rate <= CER_GOAL,
            f"{ours.rate:.4f} (PyMuPDF's OCR {base.rate:.4f}; 150 dpi "
            f"{figures[('tesseract TSV (Rabbithole)', 150)].rate:.4f})",
        ),
        Goal(
            "OCR pages per minute, 300 dpi (figure beside PyMuPDF's OCR)",
            True,
            f"{ours.per_minute:.1f} (PyMuPDF's OCR {base.per_minute:.1f})",
            machine_dependent=True,
        ),
    ]
    if args.quick:
        return 0 if print_goals(goals, indicative="--quick: 4 sample pages, no corpus figures") else 1

    copies = scanned_copies()
    print(f"\nscanned copies: {rel(copies)} ({sum(1 for _ in copies.glob('*.pdf'))} PDFs, 300 dpi)")
    scans_parser = CachedParser(settings)
    with stopwatch() as watch:
        seconds_per_page = scans_parser.parse_all(copies)
    print(f"  parsed in {watch.seconds:.0f} s (Tesseract's output from bench-data/ocr/tsv where it is there)")
    if seconds_per_page:
        print(
            f"  read now: {seconds_per_page:.2f} s per page, {60 / seconds_per_page:.1f} pages/min per worker"
        )
    total, per_document = corpus_cer(copies, scans_parser)
    print_table(
        ["document", "pages", "CER", "mean confidence", "sections (original / scan)"],
        per_document,
        title="corpus at 300 dpi:",
    )
    goals.append(
        Goal(
            f"CER at 300 dpi <= {CER_GOAL:.0%}, whole corpus ({total.pages} pages, parser's page texts)",
            total.rate <= CER_GOAL,
            f"{total.rate:.4f}",
        )
    )

    with stopwatch() as watch:
        originals = ensure_sample_index(SAMPLE_DIR)
        scans = scanned_index(copies, scans_parser)
        hybrid = {"originals": hybrid_recall(originals), "scanned copies": hybrid_recall(scans)}
        traced = {"originals": trace_recall(originals), "scanned copies": trace_recall(scans)}
    print_table(
        ["index", "hybrid recall@5 (retrieval dev set)", "trace recall (reference chains, dev)"],
        [[name, f"{hybrid[name]:.3f}", f"{traced[name]:.3f}"] for name in hybrid],
        title=f"retrieval over the scanned copies against the originals ({watch.seconds:.0f} s):",
    )
    for label, measured in (("hybrid recall@5", hybrid), ("trace recall", traced)):
        gap = measured["originals"] - measured["scanned copies"]
        goals.append(
            Goal(
                f"{label} of the scanned copies within {RECALL_GAP_GOAL} of the originals'",
                gap <= RECALL_GAP_GOAL,
                f"{measured['scanned copies']:.3f} (originals {measured['originals']:.3f}, gap {gap:+.3f})",
            )
        )
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
