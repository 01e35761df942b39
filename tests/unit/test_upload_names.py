"""Upload file names are cut by UTF-8 bytes, not characters: the stored name and the temporary
".<name>.partial" written first fit the file system's 255 bytes per name, whatever the script."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from rabbithole.ingestion.uploads import NAME_BYTES, UploadFolder, cut_to_bytes, safe_file_name

FS_NAME_BYTES = 255
LONG_NAMES = [
    "文" * 116 + ".pdf",  # 3 bytes a character
    "😀" * 100 + ".pdf",  # 4 bytes a character
    "👩🏽‍🔬" * 40 + ".pdf",  # emoji with a skin-tone modifier and a zero width joiner
    "e\u0301" * 200 + ".pdf",  # decomposed: NFC makes it é (2 bytes)
    "q\u0307\u0323" * 100 + ".pdf",  # a base with two combining marks that have no precomposed form
    "Gesetz über " * 40 + ".PDF",
]


@pytest.mark.parametrize("client_name", LONG_NAMES)
def test_long_names_fit_the_file_system_with_their_temporary_name(client_name: str) -> None:
    name = safe_file_name(client_name)
    assert name.endswith(".pdf")
    assert len(name.encode()) <= NAME_BYTES
    assert len(f".{name}.partial".encode()) <= FS_NAME_BYTES
    assert unicodedata.is_normalized("NFC", name)
    stem = name[: -len(".pdf")]
    assert unicodedata.normalize("NFC", client_name).startswith(
        stem
    )  # a start of the name, cut between characters
    assert len(stem.encode()) > NAME_BYTES - 4 - 8  # cut near the limit, not far below it


def test_a_cut_never_splits_a_character_sequence() -> None:
    assert cut_to_bytes("ab\u0301c", 3) == "a"  # b and its accent (2 bytes) do not fit together
    assert cut_to_bytes("ab\u0301c", 4) == "ab\u0301"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji of five code points, 18 bytes
    assert cut_to_bytes("x" + family, 17) == "x"
    assert cut_to_bytes("x" + family + "y", 19) == "x" + family
    assert cut_to_bytes("👍🏽👍🏽", 6) == ""  # thumbs up with its skin tone is 8 bytes
    assert cut_to_bytes("文文", 5) == "文"
    assert cut_to_bytes("short", 255) == "short"


def test_short_names_are_kept_as_they_were() -> None:
    assert safe_file_name("文書.pdf") == "文書.pdf"
    assert safe_file_name("Pru\u0308fG.pdf") == "PrüfG.pdf"  # NFC
    assert safe_file_name("report.bin") == "report.bin.pdf"
    assert safe_file_name("x" * 300) == "x" * (NAME_BYTES - 4) + ".pdf"
    assert safe_file_name("\ud800.pdf") == "_.pdf"  # a lone surrogate cannot be written as UTF-8


@pytest.mark.parametrize("client_name", LONG_NAMES)
def test_long_names_are_stored(tmp_path: Path, client_name: str) -> None:
    uploads = UploadFolder(tmp_path)
    path = uploads.save("docs", safe_file_name(client_name), b"%PDF-1.7 content")
    assert path.read_bytes() == b"%PDF-1.7 content"
    assert uploads.find("docs", path.name) == path
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_file_that_cannot_be_written_leaves_nothing(tmp_path: Path) -> None:
    uploads = UploadFolder(tmp_path)
    (uploads.folder("docs") / "blocked.pdf").mkdir(parents=True)  # a folder where the file would go
    with pytest.raises(OSError):
        uploads.save("docs", "blocked.pdf", b"%PDF-1.7")
    assert [p.name for p in uploads.folder("docs").iterdir()] == ["blocked.pdf"]
