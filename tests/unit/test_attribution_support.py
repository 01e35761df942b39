"""The support check of attribution reads each quote with its place (issue 30): a sentence naming another
provision than the section its quote stands in is flagged as a contradiction, in the research run's and
report mode's attribution alike (report mode's sentences are not corrected before it)."""

from __future__ import annotations

from typing import Any

from tests.unit.test_source_numbering import fake_embed

from rabbithole.research.evidence.citations import DraftClaim, DraftSection
from rabbithole.research.models import Evidence
from rabbithole.research.synthesis.attribution import build_result

QUOTE = "Die Genehmigung ist zu versagen, wenn die erforderliche Vorsorge gegen Schäden nicht getroffen ist."


def evidence() -> Evidence:
    return Evidence(
        id="t1-e1",
        task_id="t1",
        chunk_id="c1",
        collection="sample",
        document="AtG.pdf",
        page=5,
        section="§ 7",
        quote=QUOTE,
        start=0,
        end=len(QUOTE),
        fact=QUOTE,
    )


def result_for(*texts: str) -> Any:
    state = {
        "language": "de",
        "question": "Wann ist die Genehmigung zu versagen?",
        "title": "Genehmigung",
        "sections": [
            DraftSection(
                heading="Versagung", claims=[DraftClaim(text=t, evidence_ids=["t1-e1"]) for t in texts]
            )
        ],
        "task_results": [],
    }
    return build_result(
        run_id="r", state=state, evidence=[evidence()], embed=fake_embed, support_threshold=0.15
    )


def test_another_provision_than_the_quotes_section_is_a_contradiction() -> None:
    result = result_for(
        "Nach § 9 AtG ist die Genehmigung zu versagen, wenn die Vorsorge gegen Schäden fehlt."
    )
    support = result.sources[0].support
    assert support is not None and support.contradiction and support.missing == ["§ 9 AtG"]
    assert result.claims[0].flagged == [1]


def test_the_quotes_own_section_named_another_way_is_supported() -> None:
    result = result_for(
        "Nach § 7 des Atomgesetzes ist die Genehmigung zu versagen, wenn die Vorsorge gegen Schäden fehlt."
    )
    support = result.sources[0].support
    assert support is not None and not support.contradiction
