"""The labelled claim/quote set of the support check (benchmarks/data/support_dev.yaml, issue 30): its shape,
and every quote verbatim on its page and inside its § section of kb/sample as the project's PDF parser reads
it (the text ingestion stores), as bench_support cuts it."""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_support import LABELS, Pair, cite_from_pages, load_pairs, precision  # noqa: E402

from rabbithole.core.models import ParsedDocument  # noqa: E402
from rabbithole.ingestion.parser import parse_document  # noqa: E402
from rabbithole.research.evidence.quotes import verify_quote  # noqa: E402

SAMPLE = ROOT / "kb" / "sample"


def test_the_set_has_every_label_in_both_parts_and_both_languages() -> None:
    pairs = load_pairs()
    assert len(pairs) >= 120
    assert len({p.id for p in pairs}) == len(pairs)
    for part in (False, True):
        labels = Counter(p.label for p in pairs if p.held_out == part)
        assert set(labels) == set(LABELS), part
    assert {p.lang for p in pairs} == {"de", "en"}
    for label in LABELS:  # every third pair of each label is held out
        of_label = [p for p in pairs if p.label == label]
        assert [p.held_out for p in of_label] == [i % 3 == 2 for i in range(len(of_label))]


def test_every_quote_is_verbatim_on_its_page_and_inside_its_section() -> None:
    pairs = load_pairs()
    documents: dict[str, ParsedDocument] = {
        name: parse_document(SAMPLE / name) for name in sorted({p.document for p in pairs})
    }

    def page_text(document: str, number: int) -> str:
        return next(p.text for p in documents[document].pages if p.number == number)

    cited = cite_from_pages(pairs, page_text)
    assert [c.document for c in cited] == [p.document for p in pairs]
    for pair, quote in zip(pairs, cited, strict=True):
        assert " ".join(quote.text.split()) == " ".join(pair.quote.split()), pair.id
        doc = documents[pair.document]
        page = next(p for p in doc.pages if p.number == pair.page)
        span = verify_quote(pair.quote, page.text)
        assert span is not None
        at = page.offset + span[0]
        [section] = [s for s in doc.sections if s.label and s.start <= at < s.end]
        assert section.label == pair.section, pair.id


def test_precision_leaves_partial_pairs_out() -> None:
    def pair(label: str) -> Pair:
        return Pair("x", label, "de", "c", "AtG.pdf", "§ 7", 1, "q", False)

    pairs = [pair("unrelated"), pair("supported"), pair("partial"), pair("contradicted_number")]
    assert precision(pairs, [True, True, True, False]) == 0.5
    assert math.isnan(precision(pairs, [False, False, True, False]))  # only a partial pair flagged
