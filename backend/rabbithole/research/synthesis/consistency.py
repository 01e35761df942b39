"""Claims that say what their evidence says (pure; issue 30): every number with its unit, date, amount,
percentage and provision a report sentence states must be stated by the quotes it cites (or their
sections' labels: a quote from AtG § 7 states "§ 7 AtG"), normalised (``research.evidence.claim_tokens``:
"1 mSv" = "1 Millisievert", "§ 7 AtG" = "§ 7 des Atomgesetzes").

A sentence that states one they do not is a contradiction, not a weak citation: it is replaced by the
finding of a cited piece of evidence whose own tokens its quote states (the finding's statement, citing
that evidence alone), or removed when none is. Each is recorded (``ClaimCorrection``) and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath

from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.evidence.claim_tokens import ClaimToken, claim_tokens, missing_tokens
from rabbithole.research.models import ClaimCorrection, Evidence


def evidence_tokens(e: Evidence) -> tuple[ClaimToken, ...]:
    """What a piece of evidence states: its quote's tokens and its section label's, provisions without a
    law belonging to its document (by the file's name: "AtG.pdf" is the AtG)."""
    law = PurePath(e.document).stem
    laws = (law,) if law else ()
    label = claim_tokens(e.section, document_laws=laws) if e.section else []
    return (*claim_tokens(e.quote, document_laws=laws), *label)


def correct_claims(
    section: str, claims: Sequence[DraftClaim], evidence: Mapping[str, Evidence]
) -> tuple[list[DraftClaim], list[ClaimCorrection]]:
    """``claims`` with each contradiction replaced or removed, and what was done. Claims citing nothing
    (marked uncited elsewhere) or citing only unknown ids are left as they are."""
    out: list[DraftClaim] = []
    corrections: list[ClaimCorrection] = []
    stated_by: dict[str, tuple[ClaimToken, ...]] = {}

    def stated(e: Evidence) -> tuple[ClaimToken, ...]:
        if e.id not in stated_by:
            stated_by[e.id] = evidence_tokens(e)
        return stated_by[e.id]

    for claim in claims:
        cited = [evidence[i] for i in claim.evidence_ids if i in evidence]
        wanted = claim_tokens(claim.text) if cited else []
        if not wanted:
            out.append(claim)
            continue
        missing = missing_tokens(wanted, [t for e in cited for t in stated(e)])
        if not missing:
            out.append(claim)
            continue
        replacement = next(
            (e for e in cited if e.fact.strip() and not missing_tokens(e.fact, stated(e))), None
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
