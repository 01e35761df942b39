"""Reading a prompt the way the fake model "understands" it: deterministic and cheap.

``PromptContext`` finds the question (the last user message without its context block), the context
material (``<context>``/``<passage>``/``<document>``/``<source>`` blocks, else the user's text), the
language (German or English, by stopwords), salient keywords, identifiers of sources cited in the
prompt (``<passage id="S1">``, ``[S1]``, ``source_id: ...``) and candidate sentences from the
context, ranked by overlap with the question. Sentences are exact substrings of the prompt, so
answers built from them pass verbatim-quote checks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Language = Literal["de", "en"]

_DE_WORDS = """aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes
    auch auf aus bei beim bin bis bist da damit dann das dass dein deine dem den denn der des dessen
    die dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer eines
    er es etwas euer eure für gegen gewesen hab habe haben hat hatte hier hin hinter ich ihm ihn
    ihnen ihr ihre im in indem ins ist jede jedem jeden jeder jedes jene jener jetzt kann kein keine
    können könnte machen man manche mein meine mit muss musste nach nicht nichts noch nun nur ob oder
    ohne sehr sein seine sich sie sind so solche soll sollte sondern sonst über um und uns unser
    unter viel vom von vor wann war waren warum was weil welche welchem welchen welcher welches wenn
    wer werde werden wie wieder will wir wird wo wollen würde zu zum zur zwar zwischen gibt sagt wegen
    hoch
    quelle quellen frage antwort bitte kontext"""
STOPWORDS_DE = frozenset(_DE_WORDS.split())
_EN_WORDS = """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more most my
    no nor not now of off on once only or other our out over own same she should so some such than
    that the their them then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours also may must shall
    question answer please context source sources passage passages based using following provided
    return respond json object schema field fields given"""
STOPWORDS_EN = frozenset(_EN_WORDS.split())
STOPWORDS = STOPWORDS_DE | STOPWORDS_EN

_WORD = re.compile(r"[^\W\d_][\w\-]*", re.UNICODE)
_BLOCKS = re.compile(r"<(context|passage|document|source|excerpt)\b[^>]*>(.*?)</\1>", re.DOTALL)
_PASSAGE_WITH_ID = re.compile(r"<passage\b[^>]*\bid=[\"']([^\"']+)[\"'][^>]*>(.*?)</passage>", re.DOTALL)
_ID_PATTERNS = (
    re.compile(r"\bid=[\"']([^\"']{1,64})[\"']"),
    re.compile(r"\[((?:[A-Za-z]{1,4}[-_:]?)?\d{1,4})\]"),
    re.compile(
        r"\b(?:source|chunk|passage|doc|document|citation)[_ ]?id\s*[:=]\s*[\"']?([\w:.#\-/]{1,64})", re.I
    ),
)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_LEADING_ID = re.compile(r"^\[(?:[A-Za-z]{1,4}[-_:]?)?\d{1,4}\]\s*")
_BRACKET_ID = re.compile(r"\[((?:[A-Za-z]{1,4}[-_:]?)?\d{1,4})\]")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=[A-ZÄÖÜ„\"(])")
_QUESTION_LINE = re.compile(r"^\s*(?:question|frage|query|anfrage)\s*:\s*(.+)$", re.I | re.M)


def stable_hash(*parts: object) -> int:
    """A hash that is the same in every process (unlike ``hash``)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def detect_language(text: str) -> Language:
    tokens = [w.lower() for w in words(text)]
    de = sum(t in STOPWORDS_DE for t in tokens) + 2 * len(re.findall(r"[äöüß]", text.lower()))
    en = sum(t in STOPWORDS_EN for t in tokens)
    return "de" if de > en else "en"


def _stem(word: str) -> str:
    """A crude stem: inflected forms ("Diebstahls", "entered") start with it."""
    word = word.lower()
    return word[:6] if len(word) > 6 else word


@dataclass(frozen=True)
class Sentence:
    text: str
    source_id: str | None
    position: int


@dataclass
class PromptContext:
    """What the fake model takes from a prompt."""

    prompt: str
    question: str
    context: str
    language: Language
    keywords: list[str] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def seed(self) -> int:
        return stable_hash(self.prompt)

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, Any]]) -> PromptContext:
        texts: list[tuple[str, str]] = []
        for message in messages:
            texts.append((str(message.get("role", "user")), content_text(message.get("content"))))
        return cls.build(texts)

    @classmethod
    def from_prompt(cls, prompt: str, system: str | None = None) -> PromptContext:
        texts = [("system", system)] if system else []
        return cls.build([*texts, ("user", prompt)])

    @classmethod
    def build(cls, texts: Sequence[tuple[str, str]]) -> PromptContext:
        prompt = "\n\n".join(text for _, text in texts)
        user_texts = [text for role, text in texts if role == "user"]
        last_user = user_texts[-1] if user_texts else prompt
        blocks = [m.group(2) for m in _BLOCKS.finditer(prompt)]
        context = "\n".join(blocks) if blocks else "\n".join(user_texts)
        question_line = _QUESTION_LINE.findall(last_user)
        question = question_line[-1] if question_line else _BLOCKS.sub(" ", last_user)
        plain_context = _TAG.sub(" ", context)
        language = detect_language(f"{question}\n{plain_context}")
        keywords = rank_keywords(question, plain_context)
        ids = find_ids(prompt)
        asked = rank_keywords(question, "") or keywords
        sentences = rank_sentences(extract_sentences(prompt, blocks, context), asked)
        return cls(prompt, question.strip(), context, language, keywords, sentences, ids)


def content_text(content: Any) -> str:
    """Text of a message content: a string or OpenAI-style list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content if p is not None
        )
    return "" if content is None else str(content)


def rank_keywords(question: str, context: str, limit: int = 12) -> list[str]:
    scores: dict[str, float] = {}
    first: dict[str, tuple[int, str]] = {}
    for weight, text in ((3.0, question), (1.0, context)):
        for i, word in enumerate(words(text)):
            key = word.lower()
            if key in STOPWORDS or (len(word) < 4 and not word.isupper()) or len(word) > 40:
                continue
            scores[key] = scores.get(key, 0.0) + weight
            if key not in first:
                first[key] = (i if weight > 1 else 100_000 + i, word)
    ranked = sorted(scores, key=lambda k: (-scores[k], first[k][0]))
    return [first[k][1] for k in ranked[:limit]]


def find_ids(prompt: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for pattern in _ID_PATTERNS:
        found += [(m.start(), m.group(1)) for m in pattern.finditer(prompt)]
    out: list[str] = []
    for _, ident in sorted(found):
        if ident not in out:
            out.append(ident)
    return out


def _good_sentence(text: str) -> bool:
    n = len(words(text))
    return 4 <= n <= 80 and "<" not in text and ">" not in text and "{" not in text


def extract_sentences(prompt: str, blocks: Iterable[str], context: str) -> list[Sentence]:
    """Candidate sentences, each an exact substring of the prompt, with the source they came from."""
    with_ids = list(_PASSAGE_WITH_ID.finditer(prompt))
    pieces: list[tuple[str, str | None]] = (
        [(m.group(2), m.group(1)) for m in with_ids] if with_ids else [(context, None)]
    )
    out: list[Sentence] = []
    seen: set[str] = set()
    for text, source in pieces:
        current = source
        for line in text.splitlines():
            bracket = _BRACKET_ID.match(line.strip())
            if bracket and source is None:
                current = bracket.group(1)
            for part in _SENTENCE_SPLIT.split(line):
                sentence = _LEADING_ID.sub("", part.strip().lstrip("-*#>•").strip())
                if sentence and sentence not in seen and _good_sentence(sentence) and sentence in prompt:
                    seen.add(sentence)
                    out.append(Sentence(sentence, current, len(out)))
    return out


def rank_sentences(sentences: list[Sentence], keywords: Sequence[str]) -> list[Sentence]:
    """Sentences mentioning more of the (question's) keywords first; ties in prompt order."""
    stems = {_stem(k) for k in keywords[:8]}

    def score(s: Sentence) -> tuple[int, int]:
        present = [w.lower() for w in words(s.text)]
        hits = sum(any(w.startswith(stem) for w in present) for stem in stems)
        return (-hits, s.position)

    return sorted(sentences, key=score)


# -- texts the fake model writes --------------------------------------------------------------


def title_case(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def phrase(ctx: PromptContext, n: int = 3, offset: int = 0) -> str:
    kws = ctx.keywords or (["Beispiel", "Thema"] if ctx.language == "de" else ["example", "topic"])
    picked = [kws[(offset + i) % len(kws)] for i in range(min(n, len(kws)))]
    return " ".join(picked)


def query_text(ctx: PromptContext, index: int = 0) -> str:
    return phrase(ctx, 3, index)


def question_text(ctx: PromptContext, index: int = 0) -> str:
    kws = ctx.keywords or ["example"]
    a, b = kws[index % len(kws)], kws[(index + 1) % len(kws)]
    if ctx.language == "de":
        return f"Was sagen die Quellen über {a} und {b}?" if a != b else f"Was sagen die Quellen über {a}?"
    return f"What do the sources say about {a} and {b}?" if a != b else f"What do the sources say about {a}?"


def reason_text(ctx: PromptContext, index: int = 0) -> str:
    topic = phrase(ctx, 2, index)
    if ctx.language == "de":
        return f"Der Kontext behandelt {topic} ausdrücklich."
    return f"The context explicitly addresses {topic}."


def summary_text(ctx: PromptContext, index: int = 0) -> str:
    if ctx.sentences:
        return ctx.sentences[index % len(ctx.sentences)].text
    topic = phrase(ctx, 3, index)
    return f"Es geht um {topic}." if ctx.language == "de" else f"This is about {topic}."


def answer_text(ctx: PromptContext, cite: bool = True) -> str:
    """A grounded, deterministic answer: the best context sentences, with their sources."""
    lead = "Laut den vorliegenden Quellen:" if ctx.language == "de" else "According to the provided sources:"
    if not ctx.sentences:
        topic = phrase(ctx, 3)
        if ctx.language == "de":
            return f"Dazu liegen keine Quellen vor. Die Frage betrifft {topic}."
        return f"No sources were provided. The question concerns {topic}."
    parts = [lead]
    for sentence in ctx.sentences[:3]:
        ref = f" [{sentence.source_id}]" if cite and sentence.source_id else ""
        parts.append(sentence.text + ref)
    return " ".join(parts)
