"""Text in the other language: what a weak model writes when it answers a German prompt in English (or an
English one in German). The fake cannot translate: it writes sentences of the other language about one of the
prompt's short keywords (a long compound such as "Strahlenschutzverantwortliche" would outweigh an English
sentence for a language detector, so those are left out)."""

from __future__ import annotations

from rabbithole.devtools.fake_ollama.text import Language, PromptContext

_SENTENCES: dict[Language, tuple[str, ...]] = {
    "en": (
        "The documents say that the rules on {a} apply here, and this is exactly what the task is about.",
        "According to the sources, {a} is regulated in detail, which is why it matters for the answer.",
        "It is not clear from the evidence whether {a} has to be considered in this case as well.",
        "The provided passages describe {a} and explain what has to be done about it by those responsible.",
    ),
    "de": (
        "Die Dokumente sagen, dass die Regeln über {a} hier gelten, und genau darum geht es bei der Aufgabe.",
        "Nach den Quellen ist {a} im Einzelnen geregelt, weshalb es für die Antwort wichtig ist.",
        "Aus den Belegen geht nicht hervor, ob {a} in diesem Fall auch zu berücksichtigen ist.",
        "Die vorliegenden Abschnitte beschreiben {a} und erklären, was die Verantwortlichen zu tun haben.",
    ),
}
_TITLES: dict[Language, tuple[str, ...]] = {
    "en": (
        "General provisions and their scope",
        "Limits and obligations",
        "Overview of the requirements",
        "What the documents say about this topic",
    ),
    "de": (
        "Allgemeine Vorschriften und ihr Anwendungsbereich",
        "Grenzwerte und Pflichten",
        "Überblick über die Anforderungen",
        "Was die Dokumente dazu sagen",
    ),
}
_LEADS: dict[Language, str] = {
    "en": "According to the provided sources:",
    "de": "Laut den vorliegenden Quellen:",
}
_NO_TOPIC: dict[Language, str] = {"en": "this topic", "de": "dieses Thema"}
#: The longest keyword a sentence of the other language mentions.
MAX_TOPIC_CHARS = 12


def other(ctx: PromptContext) -> Language:
    return "en" if ctx.language == "de" else "de"


def _topic(ctx: PromptContext, index: int) -> str:
    short = [k for k in ctx.keywords if len(k) <= MAX_TOPIC_CHARS and not set(k.lower()) & set("äöüß")]
    return short[index % len(short)] if short else _NO_TOPIC[other(ctx)]


def sentence(ctx: PromptContext, index: int) -> str:
    """Sentence ``index`` about one of the prompt's keywords, in the other language."""
    templates = _SENTENCES[other(ctx)]
    return templates[index % len(templates)].format(a=_topic(ctx, index))


def title(ctx: PromptContext, index: int) -> str:
    titles = _TITLES[other(ctx)]
    return titles[index % len(titles)]


def prose(ctx: PromptContext, citations: list[str]) -> str:
    """A whole answer in the other language: its lead and three sentences, each with a citation shown."""
    parts = [_LEADS[other(ctx)]]
    for i in range(3):
        ref = f" [{citations[i % len(citations)]}]" if citations else ""
        parts.append(sentence(ctx, i)[:-1] + ref + ".")
    return " ".join(parts)
