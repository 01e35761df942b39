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

A figure the evidence states can still contradict it: put where the quote gives another figure of the same
unit ("für ein einzelnes Jahr ... 100 Millisievert" under a quote giving 50 for a single year and 100 for
five years together; ``figure_place``). ``contradictions`` says which figure the quote gives there;
``missing_from`` names the claim's tokens of both kinds, so every caller sees either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from rabbithole.research.evidence.claim_tokens import ClaimToken, claim_tokens, missing_tokens
from rabbithole.research.evidence.figure_place import misplaced_figures

__all__ = ["CitedText", "Contradiction", "contradictions", "evidence_tokens", "missing_from"]


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


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A token of a claim its evidence contradicts: ``token`` as the claim writes it; ``instead`` what the
    quote gives in its place where it states the claim's figure for another thing ("50 Millisievert"
    under a claim's "100 Millisievert"), None where no cited quote states the token at all."""

    token: ClaimToken
    instead: str | None = None


def _quotes(cited: Sequence[str | CitedText]) -> list[tuple[str, list[ClaimToken], list[ClaimToken]]]:
    """Each quote read with single spaces (page text breaks lines anywhere: "20\nMillisievert"), its
    tokens (a provision without a law belongs to the quote's document) and its section's provision."""
    out: list[tuple[str, list[ClaimToken], list[ClaimToken]]] = []
    for item in cited:
        text = CitedText(item) if isinstance(item, str) else item
        quote = " ".join(text.text.split())
        section = claim_tokens(text.section, document_laws=text.laws) if text.section else []
        out.append(
            (
                quote,
                claim_tokens(quote, document_laws=text.laws),
                [t for t in section if t.kind == "provision"],
            )
        )
    return out


def evidence_tokens(cited: Sequence[str | CitedText]) -> list[ClaimToken]:
    """The checkable tokens the cited evidence holds: those of each quote (a provision without a law
    belongs to the quote's document) and the provision each quote's section is."""
    return [t for _, tokens, section in _quotes(cited) for t in (*tokens, *section)]


def contradictions(claim: str, cited: Sequence[str | CitedText]) -> list[Contradiction]:
    """The claim's numbers, dates, amounts, percentages and provisions that no cited quote (nor its
    section) states, and its figures the quotes state for another thing (with what they give there), in
    the order written; empty when the evidence states every one where the claim puts it. Provisions are
    checked only when every cited quote comes with its section: a quote without its place ("Wer eine
    ortsfeste Anlage ... bedarf der Genehmigung.") does not say which § it is, so it cannot contradict
    "§ 7 AtG"."""
    text = " ".join(claim.split())
    quotes = _quotes(cited)
    evidence = [t for _, tokens, section in quotes for t in (*tokens, *section)]
    tokens = claim_tokens(text)
    missing = missing_tokens(tokens, evidence)
    placed = bool(cited) and all(isinstance(c, CitedText) and c.section for c in cited)
    found = [Contradiction(t) for t in missing if placed or t.kind != "provision"]
    found += [
        Contradiction(m.token, m.quoted.text)
        for m in misplaced_figures((text, tokens), [(q, t) for q, t, _ in quotes])
    ]
    return sorted(found, key=lambda c: (c.token.start, c.token.end))


def missing_from(claim: str, cited: Sequence[str | CitedText]) -> list[ClaimToken]:
    """The claim's tokens its evidence contradicts (``contradictions``): not stated by any cited quote
    (nor its section), or stated for another thing; in the order written, empty when none."""
    return [c.token for c in contradictions(claim, cited)]
