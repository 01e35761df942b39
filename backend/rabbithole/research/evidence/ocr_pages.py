"""Which of a run's evidence comes from pages read by OCR, and with what confidence: the report's sources
carry it, and mark a quote from a page read with low confidence (ingestion.ocr.low_confidence)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rabbithole.research.models import Evidence

if TYPE_CHECKING:
    from rabbithole.catalog.repository import Catalog


@dataclass(frozen=True, slots=True)
class OcrPages:
    """OCR's mean confidence per (collection, document, page) of the pages read by OCR, and the mark below
    which a page's text counts as uncertain."""

    confidences: Mapping[tuple[str, str, int], float] = field(default_factory=dict)
    threshold: float = 80.0

    def confidence(self, collection: str, document: str, page: int) -> float | None:
        return self.confidences.get((collection, document, page))

    def is_low(self, confidence: float | None) -> bool:
        return confidence is not None and confidence < self.threshold


def ocr_pages(catalog: Catalog, evidence: Sequence[Evidence], threshold: float) -> OcrPages:
    """The OCR pages of the collections the evidence comes from (one query per collection)."""
    collections = sorted({e.collection for e in evidence if e.kind == "document"})
    confidences: dict[tuple[str, str, int], float] = {}
    for collection in collections:
        for (document, page), confidence in catalog.ocr_confidences(collection).items():
            confidences[(collection, document, page)] = confidence
    return OcrPages(confidences, threshold)
