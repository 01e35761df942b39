"""Figures the docs state that the code or the data decide: the benchmarks `make bench` runs, the dev sets'
sizes, the /health example's embedding model, and that every page under docs/ is linked from somewhere."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.__main__ import MODULES  # noqa: E402
from benchmarks.bench_search import PASSES  # noqa: E402
from benchmarks.common import load_dev_questions  # noqa: E402

from rabbithole.core.config import Settings, StorageSettings  # noqa: E402
from rabbithole.embeddings.factory import create_embedder  # noqa: E402

DOCS = ROOT / "docs"
BENCHMARKS_MD = (DOCS / "benchmarks.md").read_text(encoding="utf-8")


def _number(pattern: str, text: str = BENCHMARKS_MD) -> tuple[int, ...]:
    match = re.search(pattern, text)
    assert match, f"docs/benchmarks.md no longer says {pattern!r}"
    return tuple(int(g.replace(",", "")) for g in match.groups())


def test_the_listed_benchmarks_are_the_ones_make_bench_runs() -> None:
    commands = BENCHMARKS_MD.split("```bash", 1)[1].split("```", 1)[0]
    listed = re.findall(r"python -m (benchmarks\.bench_\w+)", commands)
    assert sorted(listed) == sorted(MODULES)


def test_bench_search_counts_are_the_dev_sets() -> None:
    questions = len(load_dev_questions())
    assert _number(r"The queries are the (\d+) questions of `benchmarks/data/retrieval_dev.yaml`") == (
        questions,
    )
    assert _number(r"over (\d+) passes, that is ([\d,]+) searches per mode") == (PASSES, questions * PASSES)


def test_bench_quality_counts_are_the_dev_sets() -> None:
    questions = load_dev_questions()
    by_language = Counter(q.lang for q in questions)
    stated = _number(r"The benchmark runs the (\d+) dev questions \((\d+) German, (\d+) English")
    assert stated == (len(questions), by_language["de"], by_language["en"])


def test_the_health_example_names_the_default_embedding_model(tmp_path: Path) -> None:
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    example = api.split("curl -s http://127.0.0.1:8000/health", 1)[1]
    (shown,) = re.findall(r'"embedding_model": "([^"]+)"', example.split("```json", 1)[1].split("```", 1)[0])
    # the example says "ready": true, and a ready server reports the loaded model's identity
    default = create_embedder(Settings(storage=StorageSettings(data_dir=tmp_path))).model_id
    assert shown == default


def test_every_docs_page_is_linked_from_the_readme_or_another_page() -> None:
    pages = {page.name: page.read_text(encoding="utf-8") for page in DOCS.glob("*.md")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in pages:
        elsewhere = [readme, *(text for other, text in pages.items() if other != name)]
        assert any(re.search(rf"(^|[/(`\s]){re.escape(name)}", text) for text in elsewhere), (
            f"docs/{name} is linked from nowhere"
        )
