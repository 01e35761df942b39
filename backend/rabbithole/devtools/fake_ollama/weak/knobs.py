"""The weak model's knobs: how often each of its behaviours hits an answer, and the profiles that set them.

Each behaviour is drawn on its own for every request, from a seed taken from the request's content (its
messages, schema, model and temperature): the same request always gets the same behaviours, a retry with
other messages or another temperature draws anew.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from rabbithole.devtools.fake_ollama.text import stable_hash

Behaviour = Literal["truncation", "repetition", "placeholders", "junk", "wrong_language", "control_chars"]
#: The behaviours, in the order they transform an answer: a long answer is generated, its headings and facts
#: spoiled, its prose written in the other language, then one item copied into the others (a junk fact is
#: repeated, as the 0.5B model repeated its wrong figure), then serialised with a raw control character and
#: cut at the output cap.
BEHAVIOURS: tuple[Behaviour, ...] = (
    "truncation",
    "placeholders",
    "junk",
    "wrong_language",
    "repetition",
    "control_chars",
)
ProfileName = Literal["normal", "weak"]
PROFILE_NAMES: tuple[ProfileName, ...] = ("normal", "weak")
#: Where a weak model's output cap cuts an answer (the 0.5B model's answers ended at about this length).
DEFAULT_CHAR_CAP = 1500


@dataclass(frozen=True)
class WeakKnobs:
    """The rate (0..1, per request) of each behaviour, and the output cap.

    * ``truncation``: the answer is long-winded (lists filled to 8 items, prose of every context sentence),
      and whenever this rate is above 0 every answer is cut at ``char_cap`` characters (done_reason "length");
    * ``repetition``: one list item (a claim with its citations, a finding) copied into every item of its
      lists, 7 items each; prose: one sentence 14 times;
    * ``placeholders``: title/heading/name fields get the schema's class name, the field's description,
      "Section heading", "Claims", "Section 1".."Section 8";
    * ``junk``: a number changed in a sentence ("1 Millisievert" -> "20 Millisievert"); a fact written from
      a sentence other than the numbered sentences it names;
    * ``wrong_language``: prose in English for a German prompt, German for an English one;
    * ``control_chars``: a raw newline inside a JSON string.
    """

    truncation: float = 0.0
    repetition: float = 0.0
    placeholders: float = 0.0
    junk: float = 0.0
    wrong_language: float = 0.0
    control_chars: float = 0.0
    char_cap: int = DEFAULT_CHAR_CAP
    profile: ProfileName = "normal"

    def __post_init__(self) -> None:
        for name in BEHAVIOURS:
            rate = getattr(self, name)
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
                raise ValueError(f"the rate of {name} must be a number within [0, 1], not {rate!r}")
        if isinstance(self.char_cap, bool) or not isinstance(self.char_cap, int) or self.char_cap < 1:
            raise ValueError(f"char_cap must be a positive integer, not {self.char_cap!r}")
        if self.profile not in PROFILE_NAMES:
            raise ValueError(f"unknown profile {self.profile!r}; one of {', '.join(PROFILE_NAMES)}")

    @property
    def active(self) -> bool:
        """Whether any behaviour can hit (the normal profile: none)."""
        return any(self.rate(b) > 0 for b in BEHAVIOURS)

    def rate(self, behaviour: Behaviour) -> float:
        return float(getattr(self, behaviour))

    def draw(self, seed: int) -> frozenset[Behaviour]:
        """The behaviours that hit the request with ``seed``: each drawn on its own."""
        return frozenset(
            b for b in BEHAVIOURS if random.Random(stable_hash("weak", seed, b)).random() < self.rate(b)
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        profile = data.pop("profile")
        return {"profile": profile, "knobs": data}


#: The profiles: "normal" answers well-formed; "weak" as the 0.5B model did (rates in docs/testing.md).
PROFILES: dict[ProfileName, WeakKnobs] = {
    "normal": WeakKnobs(),
    "weak": WeakKnobs(
        truncation=0.15,
        repetition=0.25,
        placeholders=0.5,
        junk=0.3,
        wrong_language=0.2,
        control_chars=0.15,
        profile="weak",
    ),
}
KNOB_NAMES: tuple[str, ...] = tuple(f.name for f in fields(WeakKnobs) if f.name != "profile")


def profile_knobs(profile: str = "normal", knobs: Mapping[str, Any] | None = None) -> WeakKnobs:
    """The knobs of ``profile`` with ``knobs`` overriding some (``profile_knobs("normal", {"junk": 1.0})``:
    junk alone, on every answer). ValueError for an unknown profile or knob, or a value out of range."""
    if profile not in PROFILE_NAMES:
        raise ValueError(f"unknown profile {profile!r}; one of {', '.join(PROFILE_NAMES)}")
    overrides = dict(knobs or {})
    unknown = set(overrides) - set(KNOB_NAMES)
    if unknown:
        raise ValueError(f"unknown knobs: {', '.join(sorted(unknown))}; known: {', '.join(KNOB_NAMES)}")
    return replace(PROFILES[profile], **overrides)  # type: ignore[index]
