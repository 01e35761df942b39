from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rabbithole.research.evidence.drift import anchor_similarities, validate_drift
from rabbithole.research.models import Evidence, Tier

THRESHOLDS: dict[Tier, float] = {"primary": 0.2, "secondary": 0.3, "tertiary": 0.4}


def evidence(evidence_id: str, tier: Tier) -> Evidence:
    return Evidence(
        id=evidence_id,
        task_id="t1",
        chunk_id=f"c-{evidence_id}",
        collection="sample",
        document="StrlSchG.pdf",
        page=41,
        section="§ 57",
        quote="Die zuständige Behörde prüft die Anzeige.",
        start=0,
        end=41,
        fact="Die Behörde prüft die Anzeige.",
        tier=tier,
    )


def test_per_tier_thresholds_keep_and_drop() -> None:
    items = [
        evidence("e1", "primary"),
        evidence("e2", "secondary"),
        evidence("e3", "tertiary"),
        evidence("e4", "tertiary"),
        evidence("e5", "secondary"),
    ]
    scores = {"e1": 0.25, "e2": 0.25, "e3": 0.4, "e4": 0.39, "e5": 0.3}
    result = validate_drift(items, scores, THRESHOLDS, warn_share=0.5)
    assert [e.id for e in result.kept] == ["e1", "e3", "e5"]  # a score equal to the threshold passes
    assert [(d.evidence_id, d.tier, d.score, d.threshold) for d in result.dropped] == [
        ("e2", "secondary", 0.25, 0.3),
        ("e4", "tertiary", 0.39, 0.4),
    ]
    assert result.dropped[0].document == "StrlSchG.pdf"
    assert result.dropped[0].page == 41 and result.dropped[0].section == "§ 57"
    assert "0.250" in result.dropped[0].reason and "secondary threshold 0.300" in result.dropped[0].reason
    assert result.warning is None  # 2 of 5 = 40% <= 50%


def test_warning_when_more_than_the_share_is_dropped() -> None:
    items = [evidence(f"e{i}", "tertiary") for i in range(10)]
    scores = {f"e{i}": 0.1 for i in range(3)}
    assert validate_drift(items, scores, THRESHOLDS).warning is None  # exactly 30% is not more
    scores["e3"] = 0.1
    result = validate_drift(items, scores, THRESHOLDS)
    assert result.warning is not None and "4 of 10" in result.warning and "40%" in result.warning
    assert len(result.kept) == 6


def test_unscored_evidence_and_unknown_tiers_are_kept() -> None:
    items = [evidence("e1", "tertiary"), evidence("e2", "primary")]
    result = validate_drift(items, {"e2": 0.0}, {"tertiary": 0.9})
    assert [e.id for e in result.kept] == ["e1", "e2"]
    assert result.dropped == [] and result.warning is None
    empty = validate_drift([], {}, THRESHOLDS)
    assert empty.kept == [] and empty.dropped == [] and empty.warning is None


class _AxisEmbedder:
    """Unit vectors by keyword: a text about "Dosis" points along x, anything else along y."""

    model_id = "axes"
    dim = 2

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray([[1.0, 0.0] if "Dosis" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


def test_anchor_similarities_score_heading_and_quote_against_the_anchor() -> None:
    on_topic = evidence("e1", "primary").model_copy(update={"heading": "§ 78 Dosis"})
    off_topic = evidence("e2", "primary")
    scores = anchor_similarities(
        _AxisEmbedder(), "Dosis beruflich exponierter Personen", [on_topic, off_topic]
    )
    assert scores == {"e1": 1.0, "e2": 0.0}
    assert anchor_similarities(_AxisEmbedder(), "Dosis", []) == {}
    checked = validate_drift([on_topic, off_topic], scores, THRESHOLDS)
    assert [e.id for e in checked.kept] == ["e1"] and [d.evidence_id for d in checked.dropped] == ["e2"]
