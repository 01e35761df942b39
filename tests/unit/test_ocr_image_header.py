"""An image's pixel size read from its header alone (PNG, JPEG, TIFF), and Tesseract's TSV read into words."""

from __future__ import annotations

from pathlib import Path

import pytest

from rabbithole.devtools.scans import pymupdf, write_blank_png, write_blank_tiff, write_tiff_pages
from rabbithole.ingestion.ocr.image_header import ImageHeaderError, page_sizes
from rabbithole.ingestion.ocr.tesseract import parse_tsv


def test_sizes_from_the_headers(tmp_path: Path) -> None:
    assert page_sizes(write_blank_png(tmp_path / "a.png", 20_000, 30), 10) == [(20_000, 30)]
    pixmap = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 321, 123), False)
    pixmap.clear_with(255)
    (tmp_path / "a.jpg").write_bytes(pixmap.tobytes("jpg"))
    assert page_sizes(tmp_path / "a.jpg", 10) == [(321, 123)]
    tiff = write_tiff_pages(tmp_path / "a.tif", [(4, 2, b"\xff" * 8), (3, 5, b"\xff" * 15)])
    assert page_sizes(tiff, 10) == [(4, 2), (3, 5)]
    # a TIFF's directories are walked no further than one past the limit
    assert len(page_sizes(write_blank_tiff(tmp_path / "many.tif", 300), 20)) == 21


def test_broken_headers(tmp_path: Path) -> None:
    (tmp_path / "cut.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(ImageHeaderError, match="PNG without its header"):
        page_sizes(tmp_path / "cut.png", 10)
    loop = bytearray(write_tiff_pages(tmp_path / "loop.tif", [(2, 2, b"\xff" * 4)]).read_bytes())
    loop[-4:] = loop[4:8]  # the last directory points back at the first
    (tmp_path / "loop.tif").write_bytes(bytes(loop))
    with pytest.raises(ImageHeaderError, match="broken page directory"):
        page_sizes(tmp_path / "loop.tif", 10)


def test_tesseract_tsv() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t",
        "5\t1\t1\t1\t1\t1\t10\t20\t30\t12\t96.5\t§",
        "5\t1\t1\t1\t1\t2\t45\t20\t20\t12\t91\t7",
        "5\t1\t1\t1\t1\t3\t70\t20\t5\t12\t-1\t ",
    ]
    words = parse_tsv("\n".join([header, *rows]))
    assert [(w.text, w.left, w.confidence, w.line) for w in words] == [("§", 10, 96.5, 1), ("7", 45, 91.0, 1)]
