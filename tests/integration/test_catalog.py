"""The SQLite catalog: atomic document replacement, revisions, and concurrent use without lock errors."""

from __future__ import annotations

import threading
from pathlib import Path

from rabbithole.catalog.repository import Catalog
from rabbithole.core.models import Chunk, PageText, ParsedDocument


def _document(name: str, words: str, pages: int = 2) -> tuple[ParsedDocument, list[Chunk]]:
    texts = [f"{words} Seite {n}" for n in range(1, pages + 1)]
    offsets, position = [], 0
    for text in texts:
        offsets.append(position)
        position += len(text) + len(ParsedDocument.PAGE_SEPARATOR)
    doc = ParsedDocument(
        file_name=name,
        pages=[PageText(n + 1, t, o) for n, (t, o) in enumerate(zip(texts, offsets, strict=True))],
        title=f"Titel {name}",
        abbreviation="TG",
    )
    chunks = [
        Chunk(
            id=f"{name}-{n}",
            collection="c",
            document=name,
            ordinal=n,
            text=page.text,
            start=page.offset,
            end=page.offset + len(page.text),
            page=page.number,
            page_end=page.number,
            section=f"§ {n + 1}",
            heading="Überschrift",
            section_path=("Teil 1",),
            token_count=5,
        )
        for n, page in enumerate(doc.pages)
    ]
    return doc, chunks


def test_replace_document_is_atomic_and_bumps_the_revision(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.ensure_collection("c", "model-a", 3)
    rev0 = catalog.revision("c")
    doc, chunks = _document("a.pdf", "Alpha")
    catalog.replace_document("c", doc, "hash1", 10, chunks)
    rev1 = catalog.revision("c")
    assert rev1 != rev0
    assert [c.id for c in catalog.chunks("c")] == ["a.pdf-0", "a.pdf-1"]
    assert catalog.chunks("c")[0].section_path == ("Teil 1",)
    assert catalog.pages("c", "a.pdf")[1].text == "Alpha Seite 2"
    assert catalog.document_texts("c")["a.pdf"] == doc.text

    doc2, chunks2 = _document("a.pdf", "Beta", pages=1)
    catalog.replace_document("c", doc2, "hash2", 11, chunks2)
    assert [c.text for c in catalog.chunks("c")] == ["Beta Seite 1"]
    assert catalog.document_hashes("c") == {"a.pdf": "hash2"}
    assert catalog.revision("c") != rev1

    catalog.delete_document("c", "a.pdf")
    assert catalog.chunks("c") == [] and catalog.documents("c") == []


def test_revision_changes_across_delete_and_recreate(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.ensure_collection("c", "m", 3)
    before = catalog.revision("c")
    catalog.delete_collection("c")
    catalog.ensure_collection("c", "m", 3)
    assert catalog.revision("c") != before


def test_readers_and_a_writer_in_parallel_never_see_database_locked(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    writer_catalog = Catalog(path, busy_timeout_ms=30_000)
    writer_catalog.ensure_collection("c", "m", 3)
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        try:
            for n in range(60):
                doc, chunks = _document(f"d{n % 5}.pdf", f"Text {n}")
                writer_catalog.replace_document("c", doc, f"h{n}", n, chunks)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            stop.set()

    def read() -> None:
        reader = Catalog(path, busy_timeout_ms=30_000)  # a second process-like connection pool
        try:
            while not stop.is_set():
                chunks = reader.chunks("c")
                assert len(chunks) % 2 == 0  # never a half-written document
                reader.revision("c")
        except BaseException as exc:
            errors.append(exc)
        finally:
            reader.close()

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert len(writer_catalog.documents("c")) == 5
