"""Draw citation links for new reference-chain questions, and check the chain set against the index.

    python -m benchmarks.chain_links draw [--seed 2611] [--count 60]
    python -m benchmarks.chain_links check

``draw`` lists the citation links of the ingested kb/sample (collection "sample", the data dir of
bench_references) in a seeded random order: every reference the grammar detects in a chunk that resolves
to one section (§ or Anlage) of the collection other than the citing one. Links are left out when the
citing section is already a seed of the chain set, when either section is repealed ("(weggefallen)") or
the target has less than 300 characters, and when the link repeats an earlier (citing, target) pair. The
question writer takes them in the listed order and writes a question for a link only when the target's
content is needed for the answer (not a mere legal basis); the skipped links and their reason go into
the set's README. No search result is looked at.

``check`` verifies every question of benchmarks/data/reference_chains.yaml: each gold section is a
section label of the ingested collection, each ``via`` occurs (whitespace-normalised) in the chunks of its
``from_section``, which is gold in the same question with ``hop`` one lower, and for the questions marked
``round: 3`` (drawn with ``draw``) that the question shares no word stem with the heading of a
section reached through a reference (the lexical rule: the question is written from the citing section,
so search cannot find the cited one by its title words).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT)]

from benchmarks.bench_references import CHAINS, COLLECTION, open_sample  # noqa: E402
from rabbithole.core.models import Chunk  # noqa: E402
from rabbithole.references.grammar import detect_references  # noqa: E402
from rabbithole.references.resolver import Citing  # noqa: E402

DEFAULT_DATA_DIR = ROOT / "bench-data" / "references"
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{5,}")
_STOP_WORDS = (
    "nach einer eines einem einen diese dieser dieses werden wird welche welcher welches durch sowie "
    "gesetz gesetzes verordnung absatz nummer anlage sind nicht oder unter ihrer seine seiner where which "
    "under about their there these those what whom whose must shall"
)
_STOP = frozenset(_STOP_WORDS.split())


def _norm(text: str) -> str:
    return " ".join(text.split())


def _stems(text: str) -> set[str]:
    return {w.lower()[:6] for w in _WORD.findall(text) if w.lower() not in _STOP}


def _sections(chunks: list[Chunk]) -> dict[str, list[Chunk]]:
    out: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.section is not None:
            out.setdefault(chunk.section, []).append(chunk)
    return out


def _repealed(chunks: list[Chunk]) -> bool:
    return "(weggefallen)" in chunks[0].text[:200] or "(aufgehoben)" in chunks[0].text[:200]


def draw(data_dir: Path, seed: int, count: int) -> None:
    existing = yaml.safe_load(CHAINS.read_text(encoding="utf-8"))["questions"]
    seeds = {(q["seed"]["document"], q["seed"]["section"]) for q in existing}
    with open_sample(data_dir) as services:
        engine = services.reference_engine(COLLECTION)
        documents = sorted({c.document for c in services.catalog.chunks(COLLECTION)})
        sections = {d: _sections(services.catalog.chunks(COLLECTION, d)) for d in documents}
        links: dict[tuple[str, str, str, str], str] = {}
        for document in documents:
            for section, chunks in sections[document].items():
                if (document, section) in seeds or _repealed(chunks):
                    continue
                for chunk in chunks:
                    for ref in detect_references(chunk.text):
                        resolved = engine.resolver.resolve(ref, Citing(document, section))
                        if resolved.document is None or resolved.section is None:
                            continue
                        if len(resolved.labels) != 1 or (resolved.document, resolved.section) == (
                            document,
                            section,
                        ):
                            continue
                        target = sections.get(resolved.document, {}).get(resolved.section)
                        if not target or _repealed(target) or sum(len(c.text) for c in target) < 300:
                            continue
                        key = (document, section, resolved.document, resolved.section)
                        links.setdefault(key, _norm(chunk.text[ref.start : ref.end]))
    ordered = sorted(links)
    random.Random(seed).shuffle(ordered)
    print(f"{len(ordered)} citation links (seed {seed}); the first {count}:")
    for i, (document, section, target_doc, target_section) in enumerate(ordered[:count], 1):
        mention = links[(document, section, target_doc, target_section)]
        print(f"{i:3}. {document} {section} -> {target_doc} {target_section}  [{mention}]")


def check(data_dir: Path) -> int:
    questions: list[dict[str, Any]] = yaml.safe_load(CHAINS.read_text(encoding="utf-8"))["questions"]
    errors: list[str] = []
    with open_sample(data_dir) as services:
        cache: dict[str, dict[str, list[Chunk]]] = {}

        def section(document: str, label: str) -> list[Chunk]:
            if document not in cache:
                cache[document] = _sections(services.catalog.chunks(COLLECTION, document))
            return cache[document].get(label, [])

        ids = [q["id"] for q in questions]
        errors += [f"duplicate id {i}" for i in set(ids) if ids.count(i) > 1]
        for q in questions:
            gold = {(g["document"], g["section"]): g for g in q["gold"]}
            hop0 = [g for g in q["gold"] if g["hop"] == 0]
            seed = (q["seed"]["document"], q["seed"]["section"])
            if [(g["document"], g["section"]) for g in hop0] != [seed]:
                errors.append(f"{q['id']}: the seed is not the only hop-0 entry")
            for g in q["gold"]:
                if not section(g["document"], g["section"]):
                    errors.append(f"{q['id']}: no section {g['document']} {g['section']}")
                if g["hop"] == 0:
                    continue
                source = gold.get((g["from_document"], g["from_section"]))
                if source is None or source["hop"] != g["hop"] - 1:
                    errors.append(f"{q['id']}: {g['section']} comes from no gold entry one hop lower")
                text = _norm(" ".join(c.text for c in section(g["from_document"], g["from_section"])))
                if _norm(g["via"]) not in text:
                    where = f"{g['from_document']} {g['from_section']}"
                    errors.append(f"{q['id']}: via {g['via']!r} not in {where}")
                if q.get("round", 2) >= 3:
                    chunks = section(g["document"], g["section"])
                    heading = chunks[0].heading if chunks else ""
                    shared = _stems(q["question"]) & _stems(heading)
                    if shared:
                        errors.append(f"{q['id']}: shares {sorted(shared)} with the heading {heading!r}")
    for error in errors:
        print(error)
    gold_sections = sum(len(q["gold"]) for q in questions)
    print(f"{len(questions)} questions, {gold_sections} gold sections, {len(errors)} errors")
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=("draw", "check"))
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--seed", type=int, default=2611)
    parser.add_argument("--count", type=int, default=60)
    args = parser.parse_args(argv)
    if args.command == "draw":
        draw(args.data_dir, args.seed, args.count)
        return 0
    return check(args.data_dir)


if __name__ == "__main__":
    raise SystemExit(main())
