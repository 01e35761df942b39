"""String values for schema instances: formats, lengths, and strings matching a regex pattern."""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Mapping
from typing import Any

from rabbithole.devtools.fake_ollama.text import PromptContext


def search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


def fit_length(text: str, schema: Mapping[str, Any], ctx: PromptContext) -> str:
    """Respect minLength/maxLength; a verbatim text is only ever cut to a prefix (still verbatim)."""
    hi = schema.get("maxLength")
    lo = int(schema.get("minLength", 0))
    if isinstance(hi, int) and len(text) > hi:
        cut = text[:hi]
        if not text[hi].isspace() and " " in cut:  # do not end mid-word
            shorter = cut[: cut.rfind(" ")]
            if len(shorter.rstrip()) >= max(lo, 1):
                cut = shorter
        text = cut.rstrip() if len(cut.rstrip()) >= lo else cut
    if len(text) < lo:
        filler = " ".join(ctx.keywords) or "example"
        while len(text) < lo:
            text = f"{text} {filler}".strip()
        if isinstance(hi, int):
            text = text[:hi]
    return text


def formatted(fmt: str, rng: random.Random, ctx: PromptContext) -> str | None:
    if fmt == "date-time":
        return f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00Z"
    if fmt == "date":
        return f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    if fmt == "time":
        return "12:00:00"
    if fmt in ("email", "idn-email"):
        return "research@example.org"
    if fmt in ("uri", "url", "iri", "uri-reference", "iri-reference"):
        slug = "-".join(k.lower() for k in ctx.keywords[:3]) or "source"
        return f"https://example.org/{slug}"
    if fmt == "uuid":
        h = f"{rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"
    if fmt in ("hostname", "idn-hostname"):
        return "example.org"
    if fmt == "ipv4":
        return "192.0.2.1"
    if fmt == "ipv6":
        return "2001:db8::1"
    if fmt == "duration":
        return "PT1H"
    return None


_sre: Any = importlib.import_module("re._parser")
_C: Any = importlib.import_module("re._constants")
_CATEGORY_CHAR = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
}


def sample_regex(pattern: str, rng: random.Random) -> str | None:
    """A string that ``re.search(pattern)`` accepts (simple patterns), or None."""
    try:
        parsed = _sre.parse(pattern)
    except re.error:
        return None
    out: list[str] = []

    def in_char(items: Any) -> str:
        negate = False
        for op, av in items:
            name = str(op)
            if name == "NEGATE":
                negate = True
            elif not negate and name == "LITERAL":
                return chr(av)
            elif not negate and name == "RANGE":
                return chr(av[0] + rng.randint(0, max(0, min(av[1] - av[0], 25))))
            elif not negate and name == "CATEGORY":
                return _CATEGORY_CHAR.get(str(av), "a")
        if negate:
            for candidate in "aZ0_ -.":
                if re.fullmatch(_class_source(items), candidate):
                    return candidate
        return "a"

    def emit(items: Any) -> None:
        for op, av in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(av))
            elif name == "NOT_LITERAL":
                out.append("a" if chr(av) != "a" else "b")
            elif name == "ANY":
                out.append("x")
            elif name == "IN":
                out.append(in_char(av))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, high, sub = av
                n = low if low > 0 else 1
                n = min(n, high if high != _C.MAXREPEAT else n)
                for _ in range(n):
                    emit(sub)
            elif name == "SUBPATTERN":
                emit(av[-1])
            elif name == "ATOMIC_GROUP":
                emit(av)
            elif name == "BRANCH":
                emit(av[1][0])
            elif name == "CATEGORY":
                out.append(_CATEGORY_CHAR.get(str(av), "a"))

    emit(parsed)
    text = "".join(out)
    return text if search(pattern, text) else None


def _class_source(items: Any) -> str:
    """Rebuild ``[...]`` source for a parsed character class (used to test a candidate)."""
    parts = []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            parts.append("^")
        elif name == "LITERAL":
            parts.append(re.escape(chr(av)))
        elif name == "RANGE":
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif name == "CATEGORY":
            parts.append(
                {"CATEGORY_DIGIT": r"\d", "CATEGORY_SPACE": r"\s", "CATEGORY_WORD": r"\w"}.get(str(av), "")
            )
    return "[" + "".join(parts) + "]"
