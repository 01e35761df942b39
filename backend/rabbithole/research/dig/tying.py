"""Facts tied to their sentences (issue 30): a finding whose numbers, dates, amounts, percentages or
provisions (``evidence.claim_tokens``) are not in the sentences the model chose for it gets the sentences
of the passage that hold them, or is dropped, so the quote shown under a fact is the one that states it
(a fact quoted from several places keeps only the quotes that state one of its tokens: ``holds_any``).

A weak model picks sentences 1 and 2 of a passage and writes its fact from sentence 11 ("20 Millisievert");
quoting sentences 1 and 2 under that fact would be a fabricated citation. Pure and deterministic: the
sentences are searched in the passages of the chosen sentences first, then in the other passages of the
call, and within one passage the fewest sentences that hold every missing token are taken (most missing
tokens first, then the most content words shared with the fact, then the nearest to the chosen ones).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rabbithole.research.evidence.claim_tokens import ClaimToken, claim_tokens, covers, missing_tokens
from rabbithole.research.evidence.numbering import NumberedSentence
from rabbithole.research.evidence.support import token_overlap

__all__ = ["SentenceTokens", "Tie", "holds_any", "sentence_tokens", "tie_fact"]


@dataclass(frozen=True, slots=True)
class SentenceTokens:
    """A numbered sentence with its text and tokens; ``context``: the tokens of its passage's section
    label and law, which every sentence of the passage states (a sentence of AtG § 7 is "§ 7 AtG")."""

    sentence: NumberedSentence
    text: str
    tokens: tuple[ClaimToken, ...]
    context: tuple[ClaimToken, ...] = ()

    @property
    def all_tokens(self) -> tuple[ClaimToken, ...]:
        return (*self.tokens, *self.context)


@dataclass(frozen=True, slots=True)
class Tie:
    """The sentences a fact is quoted from: ``sentences`` (None: the fact is dropped, a token of it is in
    none of the passages), ``retied``: other sentences than the model chose."""

    sentences: list[int] | None
    retied: bool = False


def sentence_tokens(
    table: Sequence[NumberedSentence],
    texts: Mapping[int, str],
    laws: Mapping[str, Sequence[str]],
    labels: Mapping[str, str],
) -> dict[int, SentenceTokens]:
    """Each sentence's tokens: ``texts`` by number, ``laws`` (names of the document's law) and ``labels``
    (section labels such as "§ 7") by chunk id."""
    context = {
        chunk: tuple(claim_tokens(label, document_laws=laws.get(chunk, ())))
        for chunk, label in labels.items()
        if label
    }
    return {
        s.number: SentenceTokens(
            s,
            texts[s.number],
            tuple(claim_tokens(texts[s.number], document_laws=laws.get(s.chunk_id, ()))),
            context.get(s.chunk_id, ()),
        )
        for s in table
        if s.number in texts
    }


def tie_fact(fact: str, chosen: Sequence[int], sentences: Mapping[int, SentenceTokens]) -> Tie:
    """The sentences to quote for ``fact``: the chosen ones when they hold all of its tokens; otherwise
    the chosen ones that hold one of them plus the fewest sentences of one passage that hold the rest;
    ``Tie(None)`` when no passage holds them."""
    known = sorted({n for n in chosen if n in sentences})
    wanted = claim_tokens(fact)
    if not wanted:
        return Tie(known)
    have = [t for n in known for t in sentences[n].all_tokens]
    missing = missing_tokens(wanted, have)
    if not missing:
        return Tie(known)
    keep = [n for n in known if any(covers(t, w) for t in sentences[n].tokens for w in wanted)]
    for chunk in _chunks_in_order(known, sentences):
        candidates = [s for s in sentences.values() if s.sentence.chunk_id == chunk]
        picked = _cover(fact, missing, candidates, known)
        if picked is not None:
            return Tie(sorted({*keep, *picked}), retied=True)
    return Tie(None, retied=True)


def holds_any(
    numbers: Sequence[int], wanted: Sequence[ClaimToken], sentences: Mapping[int, SentenceTokens]
) -> bool:
    """Whether the sentences ``numbers`` (one quote's) state one of the fact's tokens ``wanted``: a quote
    of a fact with figures that states none of them is not its support (the fact's other quotes are)."""
    held = [t for n in numbers if n in sentences for t in sentences[n].all_tokens]
    return any(covers(t, w) for t in held for w in wanted)


def _chunks_in_order(known: Sequence[int], sentences: Mapping[int, SentenceTokens]) -> list[str]:
    """The chunks of the chosen sentences first, then the others, in sentence order."""
    first = [sentences[n].sentence.chunk_id for n in known]
    rest = [s.sentence.chunk_id for _, s in sorted(sentences.items())]
    return list(dict.fromkeys([*first, *rest]))


def _cover(
    fact: str, missing: Sequence[ClaimToken], candidates: Sequence[SentenceTokens], known: Sequence[int]
) -> list[int] | None:
    """Greedy: the sentence holding the most of the still missing tokens (ties: more content words shared
    with the fact, nearer to a chosen sentence, earlier), until none is missing; None when one is in no
    candidate."""
    remaining = list(missing)
    picked: list[int] = []
    while remaining:
        options = [s for s in candidates if s.sentence.number not in picked]
        if not options:
            return None
        best = max(options, key=lambda s: _rank(fact, remaining, s, known))
        held = [w for w in remaining if any(covers(t, w) for t in best.all_tokens)]
        if not held:
            return None
        picked.append(best.sentence.number)
        remaining = [w for w in remaining if w not in held]
    return picked


def _rank(
    fact: str, remaining: Sequence[ClaimToken], s: SentenceTokens, known: Sequence[int]
) -> tuple[int, float, int, int]:
    held = sum(1 for w in remaining if any(covers(t, w) for t in s.all_tokens))
    distance = min((abs(s.sentence.number - n) for n in known), default=0)
    return (held, token_overlap(fact, s.text), -distance, -s.sentence.number)
