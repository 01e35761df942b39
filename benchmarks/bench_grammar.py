"""Throughput of the grammar reference detector (rabbithole.references.grammar) in MB of text per second.

    python benchmarks/bench_grammar.py [--source DIR] [--repeat N] [--min-mbps X]

Text source: the sample knowledge base in the repository (kb/sample/*.pdf, text extracted with PyMuPDF),
or --source (a folder of *.pdf, *.md or *.txt of your own). All files are concatenated into one text (the
17 laws: about 1.8 MB); the best of N runs is reported. With --min-mbps the exit status is 1 below that
figure (the target is 1 MB/s).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from rabbithole.references.grammar import detect_references

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "kb" / "sample"


def _pdf_text(path: Path) -> str:
    import pymupdf  # only needed for PDF sources

    with pymupdf.open(path) as doc:  # type: ignore[no-untyped-call]
        return "\n\f".join(page.get_text() for page in doc)


def load_texts(folder: Path) -> list[tuple[str, str]]:
    texts = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() == ".pdf":
            texts.append((path.name, _pdf_text(path)))
        elif path.suffix.lower() in (".md", ".txt") and path.name.lower() != "readme.md":
            texts.append((path.name, path.read_text(encoding="utf-8")))
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", type=Path, help="folder with *.pdf, *.md or *.txt files")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best is reported (default 5)")
    parser.add_argument("--min-mbps", type=float, default=None, help="fail below this throughput")
    args, _others = parser.parse_known_args(argv)  # `python -m benchmarks --quick` passes its own flags

    source: Path = args.source or SAMPLE_DIR
    texts = load_texts(source) if source.is_dir() else []
    if not texts:
        print(f"bench_grammar: no *.pdf, *.md or *.txt files in {source}", file=sys.stderr)
        return 2

    text = "\n\n".join(t for _, t in texts)
    megabytes = len(text.encode("utf-8")) / 1e6
    best = float("inf")
    refs = []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        refs = detect_references(text)
        best = min(best, time.perf_counter() - started)
    mbps = megabytes / best
    kinds = Counter(r.type.value for r in refs)
    print(f"source: {source} ({len(texts)} files, {megabytes:.2f} MB, {len(text):,} characters)")
    print(f"references: {len(refs):,}  " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print(f"best of {args.repeat}: {best:.3f} s  ->  {mbps:.2f} MB/s")
    if args.min_mbps is not None and mbps < args.min_mbps:
        print(f"bench_grammar: {mbps:.2f} MB/s is below the required {args.min_mbps} MB/s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
