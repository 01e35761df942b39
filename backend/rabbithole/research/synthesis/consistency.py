"""Claims that say what their evidence says (pure; issue 30): every number with its unit, date, amount,
percentage and provision a report sentence states must be stated by the quotes it cites (or their
sections' labels: a quote from AtG § 7 states "§ 7 AtG"), normalised (``research.evidence.claim_tokens``:
"1 mSv" = "1 Millisievert", "§ 7 AtG" = "§ 7 des Atomgesetzes"; the check itself is
``research.evidence.consistency``, shared with the support check).

A sentence that states one they do not is a contradiction, not a weak citation: it is replaced by the
finding of a cited piece of evidence whose own tokens its quote states (the finding's statement, citing
that evidence alone), or removed when none is. Each is recorded (``ClaimCorrection``) and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.evidence.consistency import CitedText, missing_from
from rabbithole.research.models import ClaimCorrection, Evidence


def cited_text(e: Evidence) -> CitedText:
    """A piece of evidence as the consistency check reads it: its quote and where it stands."""
    return CitedText(e.quote, e.document, e.section)


def correct_claims(
    section: str, claims: Sequence[DraftClaim], evidence: Mapping[str, Evidence]
) -> tuple[list[DraftClaim], list[ClaimCorrection]]:
    """``claims`` with each contradiction replaced or removed, and what was done. Claims citing nothing
    (marked uncited elsewhere) or citing only unknown ids are left as they are."""
    out: list[DraftClaim] = []
    corrections: list[ClaimCorrection] = []
    for claim in claims:
        cited = [evidence[i] for i in claim.evidence_ids if i in evidence]
        missing = missing_from(claim.text, [cited_text(e) for e in cited]) if cited else []
        if not missing:
            out.append(claim)
            continue
        replacement = next(
            (e for e in cited if e.fact.strip() and not missing_from(e.fact, [cited_text(e)])), None
        )
        if replacement is not None:
            text = " ".join(replacement.fact.split())
            out.append(DraftClaim(text=text, evidence_ids=[replacement.id]))
        corrections.append(
            ClaimCorrection(
                section=section,
                sentence=claim.text,
                missing=[t.text for t in missing],
                action="rewritten" if replacement is not None else "removed",
                replacement=" ".join(replacement.fact.split()) if replacement is not None else None,
            )
        )
    return out, corrections


def finding_claims(evidence: Sequence[Evidence]) -> list[DraftClaim]:
    """Each distinct finding of ``evidence`` (by its fact, in order) as a claim citing every piece of
    ``evidence`` that quotes it, when those quotes together state all its numbers, dates and provisions;
    a finding they do not is left out. (Extraction ties one fact to several runs of sentences, each its own
    piece of evidence: one of them alone may hold only some of the fact's provisions.)"""
    by_fact: dict[str, list[Evidence]] = {}
    for e in evidence:
        fact = " ".join(e.fact.split())
        if fact:
            by_fact.setdefault(fact, []).append(e)
    return [
        DraftClaim(text=fact, evidence_ids=list(dict.fromkeys(e.id for e in pieces)))
        for fact, pieces in by_fact.items()
        if not missing_from(fact, [cited_text(e) for e in pieces])
    ]
