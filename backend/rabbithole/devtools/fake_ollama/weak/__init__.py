"""The weak-model mode of the fake Ollama: answers the way a 0.5B-parameter local model answered (issues 24
and 30): cut at the output cap, looping, schema names and placeholders as headings, changed figures, the
wrong language, raw control characters in JSON strings. Switched on per server (``FakeState.set_knobs``,
``POST /_fake/profile``, ``--profile weak``); see docs/testing.md for the knobs and their rates.

Only ``knobs`` is imported here: the state imports it, and ``answer`` imports the state's types.
"""

from rabbithole.devtools.fake_ollama.weak.knobs import (
    BEHAVIOURS,
    DEFAULT_CHAR_CAP,
    KNOB_NAMES,
    PROFILE_NAMES,
    PROFILES,
    Behaviour,
    WeakKnobs,
    profile_knobs,
)

__all__ = [
    "BEHAVIOURS",
    "DEFAULT_CHAR_CAP",
    "KNOB_NAMES",
    "PROFILES",
    "PROFILE_NAMES",
    "Behaviour",
    "WeakKnobs",
    "profile_knobs",
]
