"""The measured checks of the report (pure): what the model wrote for each section, against what the guards
had to drop, what cites nothing and what is in the wrong language; the verdict they give alone, before the
model's own grades and the support check are added.

A section is unusable (rewritten once, then assembled from the verified findings) when the model gave no
valid answer, nothing it wrote survived the guards, more than half of what it wrote repeated other
sentences, or more than half of its sentences cite nothing. A section in the wrong language is rewritten
once and then kept (with a warning). The report fails the checks when any section shown has a problem, when
more than ``MAX_REPEATED_SHARE`` of the sentences written were repeats, or (after attribution) when more
than ``MAX_FLAGGED_SHARE`` of its citations are weakly supported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rabbithole.research.guards import GuardSection, is_placeholder, normalise_sentence
from rabbithole.research.models import QualityProblem, ReportChecks
from rabbithole.research.synthesis.sections import SectionDraft

#: Repeats among all sentences written above which the report fails.
MAX_REPEATED_SHARE = 0.3
#: Repeats among one section's sentences above which the section is unusable (from 3 sentences on).
MAX_REPEATED_SECTION = 0.5
#: Uncited sentences among one section's kept ones above which it is unusable (from 2 sentences on).
MAX_UNCITED_SECTION = 0.5
#: Weakly supported citations above which the report fails (it is not remediated: the check runs last).
MAX_FLAGGED_SHARE = 0.5
#: Sentences named one by one in the problems at most (per kind and section).
MAX_NAMED = 5

Failure = Literal["no_answer", "empty", "repeated", "uncited"]


@dataclass(slots=True)
class SectionCheck:
    """One model-written section: its sentences as written and as they survived the guards."""

    index: int
    heading: str
    answered: bool
    language_ok: bool
    written: int = 0
    placeholders: int = 0
    kept: int = 0
    uncited: list[str] = field(default_factory=list)
    most_repeated: str | None = None
    removed: int = 0  # contradicted their evidence and were removed

    @property
    def repeated(self) -> int:
        return max(0, self.written - self.placeholders - self.removed - self.kept)

    @property
    def failure(self) -> Failure | None:
        if not self.answered:
            return "no_answer"
        if self.kept == 0:
            return "empty"
        if self.written >= 3 and self.repeated / self.written > MAX_REPEATED_SECTION:
            return "repeated"
        if self.kept >= 2 and len(self.uncited) / self.kept > MAX_UNCITED_SECTION:
            return "uncited"
        return None

    def problems(self) -> list[QualityProblem]:
        out: list[QualityProblem] = []
        failure = self.failure
        if failure in ("no_answer", "empty"):
            detail = "no valid answer" if failure == "no_answer" else "no usable sentence"
            out.append(QualityProblem(kind=failure, section=self.heading, detail=detail))
        if self.repeated and (failure == "repeated" or self.repeated >= 2):
            out.append(
                QualityProblem(
                    kind="repeated",
                    section=self.heading,
                    sentence=self.most_repeated,
                    detail=f"{self.repeated} of {self.written} sentences repeated others",
                )
            )
        for sentence in self.uncited[:MAX_NAMED] if failure == "uncited" else []:
            out.append(
                QualityProblem(
                    kind="uncited", section=self.heading, sentence=sentence, detail="cites nothing"
                )
            )
        if not self.language_ok:
            out.append(
                QualityProblem(
                    kind="wrong_language", section=self.heading, detail="not in the question's language"
                )
            )
        return out


def check_section(draft: SectionDraft, guarded: GuardSection | None, *, removed: int = 0) -> SectionCheck:
    """``draft`` as the model wrote it against ``guarded``, the same section after the report's guards
    (None: the guards dropped all of it); ``removed`` of its sentences contradicted their evidence."""
    texts = [c.text for c in draft.claims if normalise_sentence(c.text)]
    keys = Counter(normalise_sentence(t) for t in texts)
    top, top_count = keys.most_common(1)[0] if keys else ("", 0)
    kept = guarded.claims if guarded is not None else []
    return SectionCheck(
        index=draft.index,
        heading=draft.heading,
        answered=draft.answered,
        language_ok=draft.language_ok,
        written=len(texts),
        placeholders=sum(1 for t in texts if is_placeholder(t)),
        kept=len(kept),
        uncited=[c.text for c in kept if not c.evidence_ids],
        removed=removed,
        most_repeated=next((t for t in texts if normalise_sentence(t) == top), None)
        if top_count > 1
        else None,
    )


def report_checks(
    checks: Sequence[SectionCheck],
    *,
    shown: Collection[int],
    planned: int,
    assembled: int,
    cited: int,
    sentences: int,
) -> ReportChecks:
    """The report's checks from the model-written sections of the last pass (``checks``; ``shown``: the
    indices of those shown, the others were assembled), the number of sections planned and assembled,
    and the report's cited and total sentences. The figures cover everything the model wrote; the
    problems (and the verdict) the sections shown."""
    written = sum(c.written for c in checks)
    repeated = sum(c.repeated for c in checks)
    visible = [c for c in checks if c.index in shown]
    problems = [p for c in visible for p in c.problems()]
    visible_written = sum(c.written for c in visible)
    visible_repeated = sum(c.repeated for c in visible)
    share = visible_repeated / visible_written if visible_written else 0.0
    if share > MAX_REPEATED_SHARE and not any(p.kind == "repeated" for p in problems):
        problems.append(
            QualityProblem(
                kind="repeated",
                detail=f"{visible_repeated} of {visible_written} sentences written repeated others",
            )
        )
    return ReportChecks(
        sentences_written=written,
        repeated_share=round(repeated / written, 3) if written else 0.0,
        placeholders=sum(c.placeholders for c in checks),
        cited_share=round(cited / sentences, 3) if sentences else 1.0,
        tasks_with_evidence=planned,
        sections_written=sum(1 for c in visible if c.failure is None),
        sections_assembled=assembled,
        language_ok=all(c.language_ok for c in visible),
        problems=problems,
        passed=not problems,
    )


def with_support(
    checks: ReportChecks, flagged: Sequence[tuple[str, str]], flagged_citations: int, citations: int
) -> ReportChecks:
    """The checks with the support check's result: ``flagged`` (section, sentence) pairs of the claims with
    a weakly supported citation, ``flagged_citations`` of all ``citations``."""
    share = flagged_citations / citations if citations else 0.0
    problems = list(checks.problems)
    if share > MAX_FLAGGED_SHARE:
        problems += [
            QualityProblem(
                kind="weak_support", section=s, sentence=t, detail="its evidence barely supports it"
            )
            for s, t in flagged[: MAX_NAMED * 2]
        ]
    return checks.model_copy(
        update={"flagged_share": round(share, 3), "problems": problems, "passed": not problems}
    )
