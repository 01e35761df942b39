"""Reference parsing quality: (section, target document) precision, recall and F1 per class, on the
resolution table of tests/data/reference_sentences.yaml (sentences of kb/sample), grammar against hybrid.

    python benchmarks/bench_reference_parsing.py

Each sentence is detected, resolved against kb/sample (parsed here; no index needed) with the citing
document (and section, for relative references) and reported as `rabbithole refs --json` reports it; the
(section, target document) pairs are compared with the gold pairs as multisets. Printed per class (annex,
article, relative, range, historical, amendment, structural, document) and overall:

* ``grammar``: the grammar detector (the default);
* ``hybrid, unchecked``: grammar plus everything a weak model adds that is verbatim in the text (the
  behaviour before the check: merged, duplicates dropped, nothing else checked), against a fake Ollama
  scripted like a 0.5B model: it repeats the grammar's mentions, reports gazette citations ("BGBl. I S.
  1714") as articles, dates as laws and a bare "Absatz 1" as § 1 of the Atomgesetz;
* ``hybrid, checked``: the same answers through the check (model references kept only when they resolve to
  something that exists or are an external act of a recognised form).

``previous`` is the figure of the code before this table's classes were handled (commit 543785a, the same
sentences), kept in benchmarks/data/reference_parsing_previous.yaml.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT)]

from rabbithole.core.config import ReferenceSettings  # noqa: E402
from rabbithole.devtools.fake_ollama import FakeOllama, RecordedRequest  # noqa: E402
from rabbithole.ingestion.parser import parse_document  # noqa: E402
from rabbithole.llm import LLMClient  # noqa: E402
from rabbithole.references.detector import build_detector, merge, resolving  # noqa: E402
from rabbithole.references.llm_detector import LLMReferenceDetector, LLMReferenceList  # noqa: E402
from rabbithole.references.models import Reference  # noqa: E402
from rabbithole.references.parsed import resolver_for_parsed  # noqa: E402
from rabbithole.references.report import reference_rows  # noqa: E402
from rabbithole.references.resolver import Citing, ReferenceResolver  # noqa: E402

TABLE = ROOT / "tests" / "data" / "reference_sentences.yaml"
PREVIOUS = ROOT / "benchmarks" / "data" / "reference_parsing_previous.yaml"
SAMPLE = ROOT / "kb" / "sample"
CLASSES = ("annex", "article", "relative", "range", "historical", "amendment", "structural", "document")

Pair = tuple[str | None, str | None]


@dataclass(slots=True)
class Score:
    tp: int = 0
    predicted: int = 0
    gold: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, got: Sequence[Pair], want: Sequence[Pair], row_id: str) -> None:
        common = sum((Counter(got) & Counter(want)).values())
        self.tp += common
        self.predicted += len(got)
        self.gold += len(want)
        if common != len(got) or common != len(want):
            self.misses.append(row_id)

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def load_rows(path: Path = TABLE) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["resolution"]
    return rows


def predicted_pairs(
    detect: Callable[[str], Sequence[Reference]], resolver: ReferenceResolver, row: dict[str, Any]
) -> list[Pair]:
    citing = Citing(row["document"], row.get("section"))
    return [
        (item["section"], item["target_document"])
        for ref in detect(row["text"])
        for item in reference_rows(ref, resolver.resolve(ref, citing))
    ]


def gold_pairs(row: dict[str, Any]) -> list[Pair]:
    return [(e["section"], e["target"]) for e in row["expect"]]


def score_rows(
    rows: Sequence[dict[str, Any]],
    detect: Callable[[str], Sequence[Reference]],
    resolver: ReferenceResolver,
    citing_detector: Callable[[Citing], Callable[[str], Sequence[Reference]]] | None = None,
) -> dict[str, Score]:
    scores = {name: Score() for name in (*CLASSES, "all")}
    for row in rows:
        run = detect
        if citing_detector is not None:
            run = citing_detector(Citing(row["document"], row.get("section")))
        got, want = predicted_pairs(run, resolver, row), gold_pairs(row)
        scores[row["class"]].add(got, want, row["id"])
        scores["all"].add(got, want, row["id"])
    return scores


# -- a weak model, scripted -------------------------------------------------------------------------------
_DOCUMENT_RE = re.compile(r"<document>\n(.*)\n</document>", re.S)
_KNOWN_RE = re.compile(r"^- (.+)$", re.M)
_GAZETTE_RE = re.compile(r"BGBl\. I S\. (\d+)")
_DATE_RE = re.compile(r"vom \d{1,2}\. [A-ZÄÖÜ][a-zäöü]+ \d{4}")
_NUMBER_RE = re.compile(r"(?:Absatz|Satz|Nummer) (\d+)")


def weak_model_answer(request: RecordedRequest) -> dict[str, Any]:
    """What a 0.5B model answers: the known mentions again, gazette citations as articles, dates as laws,
    a bare Absatz as a section of the Atomgesetz (plausible junk spans, all verbatim in the text)."""
    content = str(request.messages[-1]["content"])
    found = _DOCUMENT_RE.search(content)
    text = found.group(1) if found else content
    known = [m for m in _KNOWN_RE.findall(content.split("<document>")[0]) if m != "(none)"]
    out: list[dict[str, Any]] = [{"mention": m, "kind": "section"} for m in known[:2]]
    out += [
        {"mention": m.group(), "kind": "article", "article": m.group(1), "law": "BGBl"}
        for m in _GAZETTE_RE.finditer(text)
    ]
    out += [{"mention": m.group(), "kind": "law", "law": m.group()} for m in _DATE_RE.finditer(text)]
    out += [
        {"mention": m.group(), "kind": "section", "section": m.group(1), "law": "Atomgesetz"}
        for m in list(_NUMBER_RE.finditer(text))[:1]
    ]
    return {"references": out}


def _print_table(columns: dict[str, dict[str, Score]], previous: dict[str, Any]) -> None:
    names = list(columns)
    header = "| class | n | previous F1 | " + " | ".join(f"{n} P / R / F1" for n in names) + " |"
    print(header)
    print("|" + " --- |" * (3 + len(names)))
    for cls in (*CLASSES, "all"):
        first = columns[names[0]][cls]
        prev = previous.get(cls)
        prev_text = f"{prev['f1']:.2f}" if isinstance(prev, dict) else "–"
        cells = [f"{s[cls].precision:.2f} / {s[cls].recall:.2f} / {s[cls].f1:.2f}" for s in columns.values()]
        print(f"| {cls} | {first.gold} | {prev_text} | " + " | ".join(cells) + " |")


def main(argv: Sequence[str] = ()) -> int:
    rows = load_rows()
    documents = {p.name: parse_document(p) for p in sorted(SAMPLE.glob("*.pdf"))}
    resolver = resolver_for_parsed("sample", documents)
    previous: dict[str, Any] = {}
    if PREVIOUS.exists():
        previous = yaml.safe_load(PREVIOUS.read_text(encoding="utf-8")).get("scores", {})
    grammar = build_detector(ReferenceSettings(detector="regex"))
    columns: dict[str, dict[str, Score]] = {"grammar": score_rows(rows, grammar, resolver)}
    with FakeOllama() as fake:
        fake.script(weak_model_answer, schema=LLMReferenceList)
        client = LLMClient(fake.settings())
        settings = ReferenceSettings(detector="hybrid")
        model = LLMReferenceDetector(client, language="de")

        def unchecked(text: str) -> list[Reference]:
            found = grammar(text)
            return merge(found, model.detect(text, found).references)[0]

        columns["hybrid, unchecked"] = score_rows(rows, unchecked, resolver)

        def checked(citing: Citing) -> Callable[[str], Sequence[Reference]]:
            return build_detector(settings, client, verify=resolving(lambda r: resolver.resolve(r, citing)))

        columns["hybrid, checked"] = score_rows(rows, grammar, resolver, checked)
    print(f"{len(rows)} sentences of kb/sample ({TABLE.relative_to(ROOT)}), (section, target document) pairs")
    _print_table(columns, previous)
    misses = columns["grammar"]["all"].misses
    print(f"grammar: sentences not exactly right: {', '.join(misses) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
