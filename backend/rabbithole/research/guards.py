"""Deterministic guards on the model text the user sees (pure).

Small local models repeat one sentence many times, write schema field or class names and placeholders as
headings ("ReportDraft", "Section heading", "Section 3"), leave sections empty and write sentences that
cite nothing. ``guard_draft`` takes a draft (title, sections of claims with evidence ids) and returns it
guarded, with counts of what each guard did:

- repeated claims collapsed: a sentence seen before anywhere in the report (normalised: case, whitespace,
  punctuation, citation marks), or a near-repeat (token-set Jaccard >= 0.9, sentences of 6+ words), is
  dropped and its evidence ids merged into the kept one; a sentence repeated inside one claim is said once;
  a sentence of ``SENTENCE_MIN_WORDS``+ words that an earlier claim already says is cut from a claim of
  several sentences (a finding quoted whole holds sentences other findings state alone), and a claim left
  with nothing new is a repeat;
- placeholder headings (and duplicate headings) replaced: by the section's own hint when it has one, else
  by the next plan task title no other heading uses, else (last resort, counted) "Part k"/"Teil k";
  a placeholder title becomes the question (or the first task title);
- empty sections (no claims left) dropped (with ``keep_sections``, as for report mode's approved outline, a
  section whose every claim repeats other sections keeps its place, empty, with ``repeats``: the key of
  the section that says them first, for the caller's note);
- claims whose text is a placeholder or a schema field's description dropped (counted);
- uncited claims kept and flagged (``GuardClaim.uncited``).

It never creates evidence: ids are only merged from dropped repeats into the claim they repeat.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from rabbithole.research.evidence.citations import strip_markers
from rabbithole.research.evidence.sentences import split_sentences
from rabbithole.research.models import TextGuards
from rabbithole.research.placeholders import heading_key as _key
from rabbithole.research.placeholders import is_placeholder

__all__ = [
    "GuardClaim",
    "GuardSection",
    "GuardedDraft",
    "TextGuards",
    "guard_draft",
    "is_placeholder",
    "normalise_sentence",
]

#: Near-repeats: token-set Jaccard at least this, both sentences at least ``NEAR_MIN_WORDS`` words.
NEAR_JACCARD = 0.9
NEAR_MIN_WORDS = 6
#: A sentence inside a claim is compared on its own from this many words (a split after "Abs." or "S."
#: leaves fragments such as "37" that many claims share).
SENTENCE_MIN_WORDS = 4

_FALLBACK_HEADING = {"de": "Teil", "en": "Part"}


@dataclass(slots=True)
class GuardClaim:
    text: str
    evidence_ids: list[str] = field(default_factory=list)
    uncited: bool = False


@dataclass(slots=True)
class GuardSection:
    """A section; ``hint``: its replacement heading when its own is a placeholder (report mode: the
    outline's question), before the plan's task titles; ``key``: the caller's id of it, passed through;
    ``repeats`` (set by the guard, ``keep_sections`` only): the key of the earlier section that says every
    claim this one had."""

    heading: str
    claims: list[GuardClaim] = field(default_factory=list)
    hint: str | None = None
    key: str | None = None
    repeats: str | None = None


@dataclass(slots=True)
class GuardedDraft:
    title: str
    sections: list[GuardSection]
    counts: TextGuards


def normalise_sentence(text: str) -> str:
    """A sentence as repeats are compared: citation marks, case, punctuation and whitespace removed."""
    text = strip_markers(unicodedata.normalize("NFKC", text)).lower()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")


def _collapse_inner(text: str) -> tuple[str, int]:
    """``text`` with each sentence that repeats inside it said once, and how many repeats went."""
    parts = [p for p in _SENTENCE_END.split(text.strip()) if p.strip()]
    kept: list[str] = []
    seen: set[str] = set()
    for part in parts:
        key = normalise_sentence(part)
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(part.strip())
    return " ".join(kept), len(parts) - len(kept)


def _near(a: set[str], b: set[str]) -> bool:
    if len(a) < NEAR_MIN_WORDS or len(b) < NEAR_MIN_WORDS:
        return False
    return len(a & b) / len(a | b) >= NEAR_JACCARD


@dataclass(slots=True)
class _Seen:
    """The claims kept so far: by normalised text, by token set (for near-repeats), by each sentence of
    ``SENTENCE_MIN_WORDS``+ words, and the key of the section each stands in."""

    by_key: dict[str, GuardClaim] = field(default_factory=dict)
    tokens: list[tuple[set[str], GuardClaim]] = field(default_factory=list)
    sentences: dict[str, GuardClaim] = field(default_factory=dict)
    section_of: dict[int, str | None] = field(default_factory=dict)

    def find(self, key: str, tokens: set[str]) -> GuardClaim | None:
        return self.by_key.get(key) or next((c for t, c in self.tokens if _near(tokens, t)), None)

    def add(self, kept: _Kept, section: str | None) -> None:
        self.by_key[kept.key] = kept.claim
        self.tokens.append((kept.tokens, kept.claim))
        for sentence in kept.sentences:
            self.sentences.setdefault(sentence, kept.claim)
        self.section_of[id(kept.claim)] = section


@dataclass(slots=True)
class _Kept:
    key: str
    tokens: set[str]
    sentences: list[str]
    claim: GuardClaim


def _sentence_keys(text: str) -> list[tuple[str, str]]:
    """``text``'s sentences (the page splitter's rules: "Abs. 2" ends nothing) with their normalised
    form, the form empty for a sentence shorter than ``SENTENCE_MIN_WORDS`` words."""
    out: list[tuple[str, str]] = []
    for span in split_sentences(text, max_chars=len(text) + 1):
        sentence = text[span.start : span.end]
        key = normalise_sentence(sentence)
        out.append((sentence, key if len(key.split()) >= SENTENCE_MIN_WORDS else ""))
    return out


def _unsaid(text: str, *seen: _Seen) -> tuple[str, GuardClaim | None]:
    """``text`` without the sentences a kept claim says already, and the claim that says the first of
    them (None: nothing cut, ``text`` as it was). Empty text: nothing of it is new."""
    parts = _sentence_keys(text)
    kept: list[str] = []
    first: GuardClaim | None = None
    for sentence, key in parts:
        said = next((s.sentences[key] for s in seen if key and key in s.sentences), None)
        if said is None:
            kept.append(sentence)
        elif first is None:
            first = said
    if first is None:
        return text, None
    if not any(key for sentence, key in parts if sentence in kept):
        return "", first  # only fragments left
    return " ".join(kept), first


def _merge(into: GuardClaim, ids: Sequence[str]) -> None:
    into.evidence_ids = list(dict.fromkeys([*into.evidence_ids, *ids]))


def _dedupe_section(
    claims: Sequence[GuardClaim], earlier: _Seen, counts: TextGuards
) -> tuple[list[_Kept], list[tuple[GuardClaim, list[str]]]]:
    """A section's claims without the repeats of each other or of ``earlier`` claims, and the ids to
    merge into the earlier claims they repeat (not merged yet)."""
    own = _Seen()
    kept: list[_Kept] = []
    merges: list[tuple[GuardClaim, list[str]]] = []
    for claim in claims:
        key = normalise_sentence(claim.text)
        if not key:
            continue
        tokens = set(key.split())
        repeated = own.find(key, tokens) or earlier.find(key, tokens)
        text = claim.text
        if repeated is None:
            text, repeated = _unsaid(claim.text, own, earlier)
            if text:
                if repeated is not None:
                    counts.repeated_sentences_collapsed += 1
                    key = normalise_sentence(text)
                    tokens = set(key.split())
                repeated = None
        if repeated is not None:
            if id(repeated) in own.section_of:
                _merge(repeated, claim.evidence_ids)
            else:
                merges.append((repeated, claim.evidence_ids))
            continue
        guarded = GuardClaim(text=text, evidence_ids=list(dict.fromkeys(claim.evidence_ids)))
        made = _Kept(key, tokens, [k for _, k in _sentence_keys(text) if k], guarded)
        own.add(made, None)
        kept.append(made)
    return kept, merges


def _dedupe_claims(
    sections: Sequence[GuardSection], counts: TextGuards, *, keep_sections: bool
) -> list[GuardSection]:
    seen = _Seen()
    out: list[GuardSection] = []
    for section in sections:
        real = [c for c in section.claims if not (normalise_sentence(c.text) and is_placeholder(c.text))]
        counts.placeholder_claims_dropped += len(section.claims) - len(real)
        collapsed = [_collapse_inner(c.text) for c in real]
        counts.repeated_sentences_collapsed += sum(n for _, n in collapsed)
        claims = [GuardClaim(t, c.evidence_ids) for (t, _), c in zip(collapsed, real, strict=True)]
        kept, merges = _dedupe_section(claims, seen, counts)
        for earlier, ids in merges:
            _merge(earlier, ids)
        for made in kept:
            seen.add(made, section.key)
        counts.repeated_claims_dropped += sum(1 for c in claims if normalise_sentence(c.text)) - len(kept)
        repeats = None
        if not kept and merges and keep_sections:  # its place in the outline stays, pointing at them
            repeats = seen.section_of.get(id(merges[0][0]))
        out.append(
            GuardSection(
                section.heading, [m.claim for m in kept], hint=section.hint, key=section.key, repeats=repeats
            )
        )
    return out


def _replace_headings(
    sections: Sequence[GuardSection], titles: Sequence[str], language: str, counts: TextGuards
) -> None:
    """Placeholder and duplicate headings replaced in place (see the module's docstring)."""
    used = {_key(s.heading) for s in sections if not is_placeholder(s.heading)}
    seen: set[str] = set()
    spare = [t.strip() for t in titles if t.strip() and not is_placeholder(t)]
    numbered = 0
    for section in sections:
        key = _key(section.heading)
        if not is_placeholder(section.heading) and key not in seen:
            seen.add(key)
            continue
        choices = [section.hint] if section.hint and not is_placeholder(section.hint) else []
        choices += spare
        new = next((c.strip() for c in choices if _key(c) not in seen and _key(c) not in used), None)
        if new is None:
            numbered += 1
            word = _FALLBACK_HEADING.get(language, _FALLBACK_HEADING["en"])
            new = f"{word} {numbered}"
            while _key(new) in seen or _key(new) in used:
                numbered += 1
                new = f"{word} {numbered}"
            counts.headings_numbered += 1
        counts.headings_replaced += 1
        seen.add(_key(new))
        section.heading = new


def guard_draft(
    title: str,
    sections: Sequence[GuardSection],
    *,
    task_titles: Sequence[str],
    question: str,
    language: str,
    keep_sections: bool = False,
) -> GuardedDraft:
    """The draft with every guard applied, and the counts (see the module's docstring). With
    ``keep_sections`` (report mode: the sections of the approved outline), a section whose every claim
    repeats other sections keeps its place, empty, with ``repeats`` naming the section that says them
    (the caller notes it) rather than being dropped."""
    counts = TextGuards()
    guarded = _dedupe_claims(sections, counts, keep_sections=keep_sections)
    kept = [s for s in guarded if s.claims or (keep_sections and s.repeats is not None)]
    counts.sections_dropped = len(guarded) - len(kept)
    _replace_headings(kept, task_titles, language, counts)
    for section in kept:
        for claim in section.claims:
            claim.uncited = not claim.evidence_ids
            counts.uncited_claims += claim.uncited
    new_title = " ".join(title.split())
    if is_placeholder(new_title):
        fallback = question.strip() or next((t for t in task_titles if not is_placeholder(t)), "")
        counts.title_replaced = True
        new_title = " ".join(fallback.split())
    return GuardedDraft(title=new_title, sections=kept, counts=counts)
