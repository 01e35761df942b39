"""Settings of OCR: how pages without a text layer (scans) and image files are read with Tesseract."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

_LANGUAGE = re.compile(r"^[a-z]{3}(_[a-z]+)?$")


class OcrSettings(BaseModel):
    """Tesseract OCR of scanned PDF pages and of PNG/JPEG/TIFF files."""

    enabled: bool = Field(
        True, description="Read pages without a text layer with Tesseract (when it is installed)."
    )
    languages: list[str] = Field(
        ["deu", "eng"],
        min_length=1,
        description="Tesseract language data to read with, in order (codes as `tesseract --list-langs` "
        "gives them; Debian's tesseract-ocr-deu and tesseract-ocr-eng by default).",
    )
    dpi: int = Field(300, ge=72, le=600, description="Resolution scanned PDF pages are rendered at for OCR.")
    low_confidence: float = Field(
        80.0,
        ge=0.0,
        le=100.0,
        description="Pages read with a lower mean word confidence (percent) are marked in the report's"
        " sources.",
    )
    max_pages: int = Field(
        500,
        ge=1,
        description="Files with more pages to read by OCR are reported and skipped (a page takes 2.5-4 s on"
        " one core at 300 dpi).",
    )
    max_megapixels: float = Field(
        100.0,
        gt=0,
        description="Image files with more pixels are reported and skipped (checked before decoding); a"
        " scanned PDF page is rendered at a lower resolution to stay within it.",
    )
    page_timeout_s: float = Field(
        120.0, gt=0, description="How long Tesseract may take for one page before the page is left out."
    )

    @field_validator("languages")
    @classmethod
    def _language_codes(cls, value: list[str]) -> list[str]:
        for code in value:
            if not _LANGUAGE.match(code):
                raise ValueError(f"'{code}' is not a Tesseract language code (e.g. deu, eng, fra)")
        return value

    @property
    def language_spec(self) -> str:
        """The languages as Tesseract's -l argument: "deu+eng"."""
        return "+".join(self.languages)
