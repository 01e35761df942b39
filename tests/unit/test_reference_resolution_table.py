"""The resolution table (tests/data/reference_sentences.yaml, ``resolution``): sentences of kb/sample and the
(section, target document) pairs `rabbithole refs` must report for them, resolved against the parsed sample
(registry, section labels, heading paths, document dates). benchmarks/bench_reference_parsing.py scores the
same table per class."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from rabbithole.core.models import ParsedDocument
from rabbithole.references.grammar import detect_references
from rabbithole.references.parsed import resolver_for_parsed
from rabbithole.references.report import reference_rows
from rabbithole.references.resolver import Citing, ReferenceResolver

TABLE_PATH = Path(__file__).resolve().parents[1] / "data" / "reference_sentences.yaml"
ROWS: list[dict[str, Any]] = yaml.safe_load(TABLE_PATH.read_text(encoding="utf-8"))["resolution"]
CLASSES = {"annex", "article", "relative", "range", "historical", "amendment", "structural", "document"}
_LAYOUT = re.compile(r"[\s\-\u00ad#]+")


@pytest.fixture(scope="module")
def resolver(sample_documents: dict[str, ParsedDocument]) -> ReferenceResolver:
    return resolver_for_parsed("sample", sample_documents)


def _params() -> list[Any]:
    out = []
    for row in ROWS:
        marks = [pytest.mark.xfail(reason=row["known_miss"], strict=True)] if row.get("known_miss") else []
        out.append(pytest.param(row, id=row["id"], marks=marks))
    return out


def test_table_covers_every_class() -> None:
    counts = Counter(row["class"] for row in ROWS)
    assert set(counts) == CLASSES
    assert all(n >= 4 for n in counts.values()), counts
    assert len({row["id"] for row in ROWS}) == len(ROWS)
    assert sum(1 for row in ROWS if not row.get("synthetic")) >= 40


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in ROWS if not r.get("synthetic")])
def test_sentence_is_verbatim(row: dict[str, Any], sample_documents: dict[str, ParsedDocument]) -> None:
    letters = _LAYOUT.sub("", row["text"])
    assert letters in _LAYOUT.sub("", sample_documents[row["document"]].text)


@pytest.mark.parametrize("row", _params())
def test_reported_section_and_target(row: dict[str, Any], resolver: ReferenceResolver) -> None:
    citing = Citing(row["document"], row.get("section"))
    got = [
        (item["section"], item["target_document"])
        for ref in detect_references(row["text"])
        for item in reference_rows(ref, resolver.resolve(ref, citing))
    ]
    want = [(e["section"], e["target"]) for e in row["expect"]]
    assert Counter(got) == Counter(want), f"got {got}"
