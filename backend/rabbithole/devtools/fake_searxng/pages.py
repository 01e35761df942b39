"""The fixture pages the fake SearxNG finds and serves (``pages/`` beside this module): a few pages on
radiation protection in English and German, with navigation, banners and footers around the article, one
plain-text page, one unrelated page, and one without text (a script-rendered shell)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PAGES_DIR = Path(__file__).parent / "pages"

_TITLE = re.compile(r"<title>(.*?)</title>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_WORD = re.compile(r"\w{3,}")


@dataclass(frozen=True, slots=True)
class FixturePage:
    name: str  # the file name; served at /pages/{name}
    media_type: str
    title: str
    text: str  # the words of the page, tags removed (for matching queries and snippets)
    body: bytes

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w.lower() for w in _WORD.findall(self.text))


@cache
def fixture_pages() -> dict[str, FixturePage]:
    pages = {}
    for path in sorted(PAGES_DIR.iterdir()):
        body = path.read_bytes()
        source = body.decode("utf-8")
        if path.suffix == ".html":
            match = _TITLE.search(source)
            title = html.unescape(match.group(1).strip()) if match else path.stem
            text = " ".join(html.unescape(_TAG.sub(" ", source)).split())
            media_type = "text/html; charset=utf-8"
        else:
            title = source.strip().splitlines()[0]
            text = " ".join(source.split())
            media_type = "text/plain; charset=utf-8"
        pages[path.name] = FixturePage(path.name, media_type, title, text, body)
    return pages


def matching_pages(query: str) -> list[FixturePage]:
    """Pages sharing a word with ``query`` (a query word that starts a page word counts, for German
    compounds), most shared words first."""
    wanted = {w.lower() for w in _WORD.findall(query)}
    scored = []
    for page in fixture_pages().values():
        words = page.words
        shared = sum(1 for w in wanted if w in words or any(p.startswith(w) for p in words))
        if shared:
            scored.append((-shared, page.name, page))
    return [page for *_, page in sorted(scored)]
