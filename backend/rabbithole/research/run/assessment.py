"""Can the corpus answer the question? Retrieval and the model decide together (pure):

- the best similarity (over the views the question was searched in, ``research/search_views.py``) at or
  above ``assess_clear``: answerable, whatever the model says (an invalid or weak judgement never rejects a
  question the corpus clearly covers);
- below ``assess_floor`` with no candidate (a passage a view in the documents' language finds with a BM25
  score of at least ``assess_bm25_floor``): the corpus holds nothing on it, whatever the model says; one
  similarity figure never declines a question while another view finds candidates;
- in between: the model's judgement (unanswerable, or asks for live data: declined); when its output is
  invalid, answerable (the run goes on and says what it found).
"""

from __future__ import annotations

from rabbithole.core.config import ResearchSettings
from rabbithole.research.models import Assessment
from rabbithole.research.run.schemas import AssessJudgement


def decide(
    judgement: AssessJudgement | None,
    best: float,
    coverage: float,
    settings: ResearchSettings,
    *,
    candidates: int = 0,
) -> Assessment:
    best, coverage = round(best, 4), round(coverage, 4)
    if judgement is None:
        verdict = "invalid"
    elif judgement.needs_live_data:
        verdict = "live_data"
    else:
        verdict = "answerable" if judgement.answerable else "unanswerable"
    reason = judgement.reason.strip() if judgement is not None else ""
    covers = judgement.corpus_covers if judgement is not None else []
    if best >= settings.assess_clear:
        answerable = True
    elif best < settings.assess_floor and candidates == 0:
        answerable = False
        reason = ""
    else:
        answerable = verdict in ("answerable", "invalid")
    return Assessment(
        answerable=answerable,
        reason=reason,
        corpus_covers=covers,
        max_similarity=best,
        coverage=coverage,
        model_verdict=verdict,  # type: ignore[arg-type]
    )
