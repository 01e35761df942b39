"""The catalog on both backends (``database_url``: the SQLite file, a PostgreSQL database): atomic document
replacement, revisions, every read the search and the API use, and concurrent use without lock errors."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rabbithole.catalog.records import IngestProblem
from rabbithole.catalog.repository import Catalog
from rabbithole.core.errors import CollectionNotFoundError, DocumentNotFoundError
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


def test_replace_document_is_atomic_and_bumps_the_revision(tmp_path: Path, database_url: str) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3", url=database_url)
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


def test_revision_changes_across_delete_and_recreate(tmp_path: Path, database_url: str) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3", url=database_url)
    catalog.ensure_collection("c", "m", 3)
    before = catalog.revision("c")
    catalog.delete_collection("c")
    catalog.ensure_collection("c", "m", 3)
    assert catalog.revision("c") != before


def test_readers_and_a_writer_in_parallel_never_see_database_locked(
    tmp_path: Path, database_url: str
) -> None:
    path = tmp_path / "catalog.sqlite3"
    writer_catalog = Catalog(path, busy_timeout_ms=30_000, url=database_url)
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
        reader = Catalog(path, busy_timeout_ms=30_000, url=database_url)  # a second connection pool
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


def test_every_read_and_write_of_the_catalog(tmp_path: Path, database_url: str) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3", url=database_url)
    catalog.ensure_collection("c", "model-a", 3)
    catalog.ensure_collection("c", "model-b", 4)  # exists: kept as it is
    catalog.ensure_collection("other", "model-a", 3)
    doc, chunks = _document("a.pdf", "Alpha")
    catalog.replace_document("c", doc, "hash1", 10, chunks, language="de", source_path="/kb/c/a.pdf")
    other, other_chunks = _document("b.pdf", "Gamma", pages=1)
    catalog.replace_document("other", other, "hash3", 12, other_chunks)

    assert [(c.name, c.embedding_model, c.documents, c.chunks) for c in catalog.list_collections()] == [
        ("c", "model-a", 1, 2),
        ("other", "model-a", 1, 1),
    ]
    [info] = catalog.documents("c")
    assert (info.file_name, info.title, info.abbreviation, info.chunks, info.language) == (
        "a.pdf",
        "Titel a.pdf",
        "TG",
        2,
        "de",
    )
    found = catalog.get_chunks("c", ["a.pdf-1", "b.pdf-0", "a.pdf-0", "missing"])
    assert sorted(found) == ["a.pdf-0", "a.pdf-1"]  # another collection's chunk is not found
    assert found["a.pdf-1"].text == "Alpha Seite 2" and found["a.pdf-1"].section_path == ("Teil 1",)
    assert found["a.pdf-1"].end - found["a.pdf-1"].start == len("Alpha Seite 2")
    many = catalog.get_chunks("c", ["a.pdf-0"] + [f"x{n}" for n in range(1200)])  # in parts of 500
    assert list(many) == ["a.pdf-0"]

    assert catalog.document_languages("c") == {"a.pdf": "de"}
    catalog.set_document_language("c", "a.pdf", "en")
    assert catalog.document_languages("c") == {"a.pdf": "en"}
    doc_id = catalog.document_ids("c")["a.pdf"]
    assert catalog.locate_document(doc_id) == ("c", "a.pdf")
    catalog.record_sources("c", {"a.pdf": str(tmp_path / "a.pdf")})
    (tmp_path / "a.pdf").write_bytes(b"%PDF")
    assert catalog.document_source("c", "a.pdf") == (tmp_path / "a.pdf", 10)

    catalog.save_registry("c", {"entries": [{"title": "Atomgesetz", "forms": ["des Atomgesetzes"]}]})
    assert catalog.load_registry("c")["entries"][0]["forms"] == ["des Atomgesetzes"]
    problems = [
        IngestProblem("z.pdf", "encrypted", "needs a password", "error"),
        IngestProblem("m.pdf", "no_text", "scanned", "warning"),
    ]
    catalog.record_problems("c", problems)
    assert [p.file_name for p in catalog.problems("c")] == ["m.pdf", "z.pdf"]

    revision = catalog.revision("c")
    catalog.touch("c")
    assert catalog.revision("c") != revision

    catalog.delete_collection("c")  # its documents, pages, chunks and problems go with it
    assert catalog.collection("c") is None and catalog.problems("c") == []
    assert catalog.get_chunks("c", ["a.pdf-0"]) == {}
    with pytest.raises(DocumentNotFoundError):
        catalog.locate_document(doc_id)
    with pytest.raises(CollectionNotFoundError):
        catalog.revision("c")
    assert [c.name for c in catalog.list_collections()] == ["other"]
    catalog.close()
