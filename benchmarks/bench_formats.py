"""The other formats (issue 28) against the PDFs: hybrid recall@5 on the retrieval dev set and `trace` recall
on the reference-chain dev questions, with kb/sample's laws ingested as DOCX, HTML and Markdown copies in
place of the PDFs, beside the PDFs themselves, in the same run.

    python -m benchmarks.bench_formats [--formats docx,html,md] [--data-dir DIR]

The copies are written by ``rabbithole.devtools.format_copies`` from each PDF's own parsed text and
structure (title and body paragraphs, Teil/Kapitel/Abschnitt headings as level 2, § headings as level 3,
the title and abbreviation in the format's metadata), into ``bench-data/formats-<fingerprint>/kb/<format>/``
(all 17 laws: the dev sets draw on nearly all of them), and each folder is ingested as a collection of its
own ("sample-docx", ...) next to "sample" (the PDFs) in one data dir, once; later runs reuse it
(incremental ingestion). A gold section ``{document: StrlSchG.pdf, section: § 78}`` counts for the copy
``StrlSchG.docx``. For every collection:

- hybrid recall@5 (the configured retrieval, the question's vector passed in) on the 95 questions of
  benchmarks/data/retrieval_dev.yaml;
- `trace` recall at the default depth on the dev chain questions (c01-c37, n01-n23) of
  benchmarks/data/reference_chains.yaml: gold sections reached / gold sections;
- passages verbatim: of every passage returned (search hits and traced passages), the share whose text is
  the stored document text at its offsets (the page texts at their recorded offsets: what a citation cuts
  and the viewer highlights).

Goals (deterministic, no model call): each copy's hybrid recall@5 and trace recall equal to the PDFs'
(issue 28: "equal recall"), and 100 % of passages verbatim.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import (
    SAMPLE_DIR,
    Goal,
    bench_root,
    bench_settings,
    fingerprint,
    load_dev_questions,
    machine_info,
    print_goals,
    print_table,
    rel,
    sample_pdfs,
    stopwatch,
)

SUFFIXES = {"docx": ".docx", "html": ".html", "md": ".md"}
ORIGINALS = "sample"
EPSILON = 1e-9


@dataclass(slots=True)
class Figures:
    collection: str
    hybrid_found: int = 0
    hybrid_questions: int = 0
    trace_found: int = 0
    trace_gold: int = 0
    passages: int = 0
    verbatim: int = 0
    ingest_seconds: float = 0.0
    misses: list[str] = field(default_factory=list)
    trace_misses: list[str] = field(default_factory=list)  # "c07 StrlSchG § 80": gold sections not reached

    @property
    def hybrid_recall(self) -> float:
        return self.hybrid_found / max(1, self.hybrid_questions)

    @property
    def trace_recall(self) -> float:
        return self.trace_found / max(1, self.trace_gold)

    @property
    def verbatim_share(self) -> float:
        return self.verbatim / max(1, self.passages)


def write_copies(folder: Path, suffix: str) -> None:
    """Every PDF of kb/sample as a copy in ``folder`` (the ones there already are kept)."""
    from rabbithole.devtools.format_copies import write_copy
    from rabbithole.ingestion.parser import parse_document

    folder.mkdir(parents=True, exist_ok=True)
    for pdf in sample_pdfs():
        target = folder / f"{pdf.stem}{suffix}"
        if not target.exists():
            write_copy(parse_document(pdf), target)


def renamed(document: str, suffix: str | None) -> str:
    """The gold document's name in a collection of copies ("StrlSchG.pdf" -> "StrlSchG.docx")."""
    return document if suffix is None else f"{Path(document).stem}{suffix}"


def ingest(services: Any, folder: Path, collection: str) -> float:
    with stopwatch() as watch:
        report = services.ingestion_pipeline().ingest(folder, collection=collection)
    failed = report.collections[0].failed
    if failed:
        raise SystemExit(f"bench_formats: ingesting {collection} failed: {failed}")
    return watch.seconds if report.collections[0].changed else 0.0


def verbatim(services: Any, collection: str, chunks: list[Any], texts: dict[str, str]) -> int:
    """How many of ``chunks`` are the stored document text at their offsets (the page texts joined by the
    page separator, each at its recorded offset: what a citation cuts and the viewer highlights)."""
    from rabbithole.core.models import ParsedDocument

    good = 0
    for chunk in chunks:
        if chunk.document not in texts:
            pages = sorted(services.catalog.pages(collection, chunk.document), key=lambda p: p.number)
            text = ParsedDocument.PAGE_SEPARATOR.join(p.text for p in pages)
            assert all(text[p.offset : p.offset + len(p.text)] == p.text for p in pages), chunk.document
            texts[chunk.document] = text
        good += texts[chunk.document][chunk.start : chunk.end] == chunk.text
    return good


def measure(services: Any, collection: str, suffix: str | None, figures: Figures) -> None:
    from benchmarks.bench_quality import first_gold_rank
    from benchmarks.bench_references import load_questions, subset
    from benchmarks.common import DevQuestion

    searcher = services.searcher
    texts: dict[str, str] = {}
    for question in load_dev_questions():
        gold = tuple((renamed(d, suffix), s) for d, s in question.gold)
        asked = DevQuestion(question.id, question.lang, question.style, question.question, gold)
        vector = searcher.embed_views(question.question, collection)
        result = searcher.run(question.question, collection, k=5, query_vector=vector)
        rank = first_gold_rank(asked, [(h.chunk.document, h.chunk.section) for h in result.hits])
        figures.hybrid_questions += 1
        figures.hybrid_found += rank is not None
        if rank is None:
            figures.misses.append(question.id)
        chunks = [h.chunk for h in result.hits]
        figures.passages += len(chunks)
        figures.verbatim += verbatim(services, collection, chunks, texts)
    engine = services.reference_engine(collection)
    for q in subset(load_questions(), (2, 3)):
        vector = searcher.embed_views(q.text, collection)
        traced = engine.trace(q.text, query_vector=vector)
        reached = {(p.chunk.document, p.chunk.section) for p in traced.passages}
        found = [g for g in q.gold if (renamed(g[0], suffix), g[1]) in reached]
        figures.trace_gold += len(q.gold)
        figures.trace_found += len(found)
        figures.trace_misses += [f"{q.id} {Path(g[0]).stem} {g[1]}" for g in q.gold if g not in found]
        chunks = [p.chunk for p in traced.passages]
        figures.passages += len(chunks)
        figures.verbatim += verbatim(services, collection, chunks, texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--formats", default="docx,html,md", help="copies to measure (default docx,html,md)")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="default bench-data/formats-<fingerprint>"
    )
    parser.add_argument("--quick", action="store_true", help="(ignored: the dev sets need the whole sample)")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = [f for f in formats if f not in SUFFIXES]
    if unknown:
        raise SystemExit(f"bench_formats: unknown formats {unknown}; known: {', '.join(SUFFIXES)}")

    from rabbithole.services import Services

    print(f"machine: {machine_info()}")
    settings = bench_settings(Path("unused"))
    # formats-2: Markdown copies with one-line headings; text formats chunked with page breaks as paragraphs
    key = fingerprint("formats-2", settings.ingestion.model_dump(), settings.embeddings.model_dump(
        exclude={"threads", "batch_size"}))  # fmt: skip
    root = args.data_dir or bench_root() / f"formats-{key}"
    collections: list[tuple[str, Path, str | None]] = [(ORIGINALS, SAMPLE_DIR, None)]
    for name in formats:
        folder = root / "kb" / name
        with stopwatch() as watch:
            write_copies(folder, SUFFIXES[name])
        print(f"copies as {name}: {rel(folder)} ({watch.seconds:.1f} s to write what was missing)")
        collections.append((f"sample-{name}", folder, SUFFIXES[name]))
    results: list[Figures] = []
    with Services(bench_settings(root / "data")) as services:
        for collection, folder, suffix in collections:
            figures = Figures(collection)
            figures.ingest_seconds = ingest(services, folder, collection)
            measure(services, collection, suffix, figures)
            results.append(figures)
            print(
                f"{collection}: hybrid recall@5 {figures.hybrid_recall:.3f}, trace recall "
                f"{figures.trace_recall:.3f}, verbatim {figures.verbatim}/{figures.passages}",
                flush=True,
            )
    print()
    print_table(
        ["collection", "hybrid recall@5", "trace recall (dev)", "passages verbatim", "ingested in s",
         "hybrid misses"],
        [[f.collection, f"{f.hybrid_recall:.3f}", f"{f.trace_recall:.3f}", f"{f.verbatim}/{f.passages}",
          f"{f.ingest_seconds:.0f}" if f.ingest_seconds else "reused", " ".join(f.misses)] for f in results],
        title=f"kb/sample as PDFs and as copies ({len(results[0].misses)} hybrid misses of the PDFs; "
        f"{results[0].hybrid_questions} retrieval questions, {results[0].trace_gold} gold chain sections):",
    )  # fmt: skip
    originals = results[0]
    for copy in results[1:]:
        lost = sorted(set(copy.trace_misses) - set(originals.trace_misses))
        gained = sorted(set(originals.trace_misses) - set(copy.trace_misses))
        if lost or gained:
            print(
                f"{copy.collection}: trace misses beside the PDFs': lost {lost or 'none'}, "
                f"gained {gained or 'none'}"
            )
    goals: list[Goal] = []
    for copy in results[1:]:
        goals.append(
            Goal(
                f"{copy.collection}: hybrid recall@5 equal to the PDFs'",
                abs(copy.hybrid_recall - originals.hybrid_recall) <= EPSILON,
                f"{copy.hybrid_recall:.3f} vs {originals.hybrid_recall:.3f}",
            )
        )
        goals.append(
            Goal(
                f"{copy.collection}: trace recall equal to the PDFs'",
                abs(copy.trace_recall - originals.trace_recall) <= EPSILON,
                f"{copy.trace_recall:.3f} vs {originals.trace_recall:.3f}",
            )
        )
    for figures in results:
        goals.append(
            Goal(
                f"{figures.collection}: passages verbatim 100 %",
                figures.verbatim == figures.passages,
                f"{figures.verbatim}/{figures.passages}",
            )
        )
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
