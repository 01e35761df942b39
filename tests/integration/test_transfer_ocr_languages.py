"""A collection's OCR languages, and the languages its documents were read in, move with an export; an
export written before they were recorded (its rows without the columns) still imports, its collections then
reading in the server's default."""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.services import ServicesFactory
from rabbithole.core.config import load_settings
from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.services import Services
from rabbithole.transfer.installation import export_installation, import_installation

SCAN = ParsedDocument(
    "permit.pdf",
    [PageText(1, "Genehmigung", 0, "ocr", 91.0)],
    warnings=["page 1 read by OCR (Tesseract, eng), mean confidence 91 %"],
)


def _source(make_services: ServicesFactory) -> Services:
    services = make_services()
    services.create_collection("scans", ["eng"])
    services.catalog.replace_document("scans", SCAN, "hash", 10, [], ocr_languages="eng")
    services.create_collection("plain")
    return services


def _strip_columns(dump: Path) -> None:
    """The export as a version before the OCR languages wrote it: no ocr_languages in any row."""
    for table in ("collections", "documents"):
        path = dump / "tables" / f"{table}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        assert all("ocr_languages" in row for row in rows)
        path.write_text(
            "".join(json.dumps({k: v for k, v in r.items() if k != "ocr_languages"}) + "\n" for r in rows)
        )


def test_the_ocr_languages_move_with_an_export(make_services: ServicesFactory, tmp_path: Path) -> None:
    _source(make_services).close()
    export_installation(load_settings(storage={"data_dir": tmp_path / "data"}), tmp_path / "dump")

    import_installation(load_settings(storage={"data_dir": tmp_path / "moved"}), tmp_path / "dump")
    moved = make_services(storage={"data_dir": tmp_path / "moved"})
    assert moved.catalog.ocr_languages("scans") == ("eng",)
    assert moved.catalog.ocr_languages("plain") == ()
    assert moved.catalog.documents_read_by_ocr("scans") == {"permit.pdf": ("eng",)}


def test_an_export_from_before_the_ocr_languages_imports(
    make_services: ServicesFactory, tmp_path: Path
) -> None:
    _source(make_services).close()
    export_installation(load_settings(storage={"data_dir": tmp_path / "data"}), tmp_path / "dump")
    _strip_columns(tmp_path / "dump")

    import_installation(load_settings(storage={"data_dir": tmp_path / "old"}), tmp_path / "dump")
    old = make_services(storage={"data_dir": tmp_path / "old"})
    assert [c.name for c in old.catalog.list_collections()] == ["plain", "scans"]
    assert old.catalog.ocr_languages("scans") == ()  # the server's default
    # read in the languages its warning names
    assert old.catalog.documents_read_by_ocr("scans") == {"permit.pdf": ("eng",)}
