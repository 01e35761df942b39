"""Whether a claim's numbers and provisions stand in the evidence it cites (issue 30).

A claim that says "20 Millisievert" under a quote that says "1 Millisievert", or "§ 9 AtG" under a quote
from AtG § 7, cites evidence that contradicts it, however similar the words are. The check is
deterministic: every checkable token of the claim (``claim_tokens``: numbers with their units, dates,
amounts, percentages, provisions with their Absatz and law, normalised) must be covered by a token of
the cited evidence. The evidence holds the tokens of its quotes and of where each quote stands: its
section label ("§ 7") as a provision of its document's law, so "Nach § 7 AtG ..." under a quote from AtG
§ 7 that does not repeat its own number is covered, and a provision a quote names without a law
("nach § 7") belongs to the quote's document.

    missing_from("Der Grenzwert beträgt 20 mSv.", [CitedText("... 1 Millisievert im Kalenderjahr.")])
    # [ClaimToken(kind="quantity", key="20 msv", text="20 mSv", ...)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from rabbithole.research.evidence.claim_tokens import ClaimToken, claim_tokens, missing_tokens

__all__ = ["CitedText", "evidence_tokens", "missing_from"]


@dataclass(frozen=True, slots=True)
class CitedText:
    """A quote a claim cites and where it stands: ``document`` its file name ("AtG.pdf"; its stem names
    the document's law), ``section`` its section label ("§ 7", "Anlage 3"; None where unknown)."""

    text: str
    document: str | None = None
    section: str | None = None

    @property
    def laws(self) -> tuple[str, ...]:
        """The names of the law the quote belongs to: its document's file stem ("AtG", "StrlSchV")."""
        if not self.document:
            return ()
        stem = PurePosixPath(self.document.replace("\\", "/")).stem.strip()
        return (stem,) if stem else ()


def evidence_tokens(cited: Sequence[str | CitedText]) -> list[ClaimToken]:
    """The checkable tokens the cited evidence holds: those of each quote (a provision without a law
    belongs to the quote's document) and the provision each quote's section is."""
    tokens: list[ClaimToken] = []
    for item in cited:
        text = CitedText(item) if isinstance(item, str) else item
        # page text breaks lines anywhere ("20\nMillisievert"): read with single spaces
        tokens += claim_tokens(" ".join(text.text.split()), document_laws=text.laws)
        if text.section:
            section = claim_tokens(text.section, document_laws=text.laws)
            tokens += [t for t in section if t.kind == "provision"]
    return tokens


def missing_from(claim: str, cited: Sequence[str | CitedText]) -> list[ClaimToken]:
    """The claim's numbers, dates, amounts, percentages and provisions that no cited quote (nor its
    section) states, in the order written; empty when every one is covered. Provisions are checked only
    when every cited quote comes with its section: a quote without its place ("Wer eine ortsfeste Anlage
    ... bedarf der Genehmigung.") does not say which § it is, so it cannot contradict "§ 7 AtG"."""
    missing = missing_tokens(claim_tokens(" ".join(claim.split())), evidence_tokens(cited))
    placed = bool(cited) and all(isinstance(c, CitedText) and c.section for c in cited)
    return missing if placed else [t for t in missing if t.kind != "provision"]
