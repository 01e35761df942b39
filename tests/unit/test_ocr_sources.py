"""A source quoted from a page OCR read carries the page's confidence; below the low-confidence mark it is
marked in the report's sources (the result's sources and the Markdown list)."""

from __future__ import annotations

from typing import Any

from tests.unit.test_attribution_support import QUOTE, evidence
from tests.unit.test_source_numbering import fake_embed

from rabbithole.research.evidence.citations import DraftClaim, DraftSection
from rabbithole.research.evidence.ocr_pages import OcrPages
from rabbithole.research.synthesis.attribution import build_result


def result_with(ocr: OcrPages | None, language: str = "de") -> Any:
    state = {
        "language": language,
        "question": "Wann ist die Genehmigung zu versagen?",
        "title": "Genehmigung",
        "sections": [
            DraftSection(heading="Versagung", claims=[DraftClaim(text=QUOTE, evidence_ids=["t1-e1"])])
        ],
        "task_results": [],
    }
    return build_result(
        run_id="r", state=state, evidence=[evidence()], embed=fake_embed, support_threshold=0.15, ocr=ocr
    )


def test_a_quote_from_a_page_read_with_low_confidence_is_marked() -> None:
    result = result_with(OcrPages({("sample", "AtG.pdf", 5): 61.4}, threshold=80.0))
    (source,) = result.sources
    assert source.ocr_confidence == 61.4 and source.ocr_low_confidence
    assert "*(OCR, unsichere Erkennung: 61 %)*" in result.report_markdown
    english = result_with(OcrPages({("sample", "AtG.pdf", 5): 61.4}, threshold=80.0), language="en")
    assert "*(OCR, low confidence: 61 %)*" in english.report_markdown


def test_a_page_read_well_carries_its_confidence_unmarked() -> None:
    result = result_with(OcrPages({("sample", "AtG.pdf", 5): 93.0}, threshold=80.0))
    (source,) = result.sources
    assert source.ocr_confidence == 93.0 and not source.ocr_low_confidence
    assert "OCR" not in result.report_markdown


def test_a_text_layer_page_has_no_ocr_figures() -> None:
    for ocr in (None, OcrPages({("sample", "AtG.pdf", 6): 40.0})):
        (source,) = result_with(ocr).sources
        assert source.ocr_confidence is None and not source.ocr_low_confidence
