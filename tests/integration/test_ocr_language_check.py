"""The check of a collection's OCR languages against the Tesseract of this machine, through
ingestion/ocr/languages.py and ocr/tesseract.py: installed codes pass in their order, the default needs
nothing, without Tesseract no language can be set (the message says how to install it), never a silent
fallback; and language data installed while the server runs counts at once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rabbithole.ingestion.ocr.languages import MAX_LANGUAGES, OcrLanguageError, check_languages
from rabbithole.ingestion.ocr.tesseract import TesseractError, installed_languages, unavailable_reason


def test_installed_languages_pass_in_their_order() -> None:
    assert check_languages([" eng", "deu "]) == ("eng", "deu")
    assert check_languages([]) == ()
    installed = installed_languages()
    assert {"deu", "eng"} <= set(installed) and "osd" not in installed


def test_too_many_languages_are_refused() -> None:
    with pytest.raises(OcrLanguageError, match=f"at most {MAX_LANGUAGES} OCR languages; 9 were given"):
        check_languages(["deu"] * 9)


@pytest.mark.usefixtures("without_tesseract")
def test_without_tesseract_no_language_can_be_set() -> None:
    with pytest.raises(TesseractError, match="Tesseract is not installed; install it with: sudo apt-get"):
        installed_languages()
    with pytest.raises(OcrLanguageError, match="Tesseract is not installed; install it with: sudo apt-get"):
        check_languages(["deu"])
    assert check_languages([]) == ()  # the server's default: reported per scan when it is read


def test_language_data_installed_while_running_counts_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the first answer was kept for the life of the process, so a scan stayed refused after
    `apt-get install tesseract-ocr-deu` until the server was restarted."""
    tessdata = installed_tessdata()
    data = tmp_path / "tessdata"
    data.mkdir()
    (data / "eng.traineddata").symlink_to(tessdata / "eng.traineddata")
    monkeypatch.setenv("TESSDATA_PREFIX", str(data))  # Tesseract's own setting for where its data lies
    assert installed_languages() == ("eng",)
    assert unavailable_reason(("deu", "eng")) == (
        "Tesseract has no data for deu; install it with: sudo apt-get install -y tesseract-ocr-deu"
    )
    with pytest.raises(OcrLanguageError, match=r"no data for the OCR language 'deu' here \(installed: eng\)"):
        check_languages(["deu"])
    (data / "deu.traineddata").symlink_to(tessdata / "deu.traineddata")  # installed meanwhile
    assert unavailable_reason(("deu", "eng")) is None
    assert check_languages(["deu"]) == ("deu",)


def installed_tessdata() -> Path:
    """Where this machine's Tesseract keeps its language data (the folder `--list-langs` names)."""
    binary = shutil.which("tesseract")
    assert binary is not None, "Tesseract is missing: make setup installs it (scripts/ensure_tesseract.sh)"
    listed = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, check=True)
    folder = Path(listed.stdout.splitlines()[0].split('"')[1])
    assert (folder / "deu.traineddata").exists()
    return folder
