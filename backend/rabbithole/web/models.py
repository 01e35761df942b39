"""What web research returns: the pages read, the passages kept (offsets into each page's extracted text)
and the warnings; and the conversion of passages into the run's ``Evidence`` (``kind="web"``)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from rabbithole.research.models import Evidence

#: The collection name web evidence carries (it is in no collection).
WEB_COLLECTION = "web"


class WebPage(BaseModel):
    """A result page that was fetched and read."""

    url: str = Field(description="The address the search listed.")
    final_url: str = Field(description="The address that answered, after redirects (cited).")
    title: str
    fetched_at: datetime
    text: str = Field(description="The extracted main text; every passage of the page indexes it.")


class WebPassage(BaseModel):
    """A verbatim passage of a page: ``pages[page].text[start:end] == quote``."""

    id: str = Field(description='"w1", "w2", ... best first.')
    page: int = Field(description="Index of its page in ``WebFindings.pages``.")
    url: str
    title: str
    fetched_at: datetime
    start: int
    end: int
    quote: str
    score: float = Field(description="Relevance to its question, 0..1 (embedding and question words).")
    question: str = Field(description="The question it answers best.")


class WebFindings(BaseModel):
    """The outcome of one ``web_research`` call. Failures are in ``warnings``, never in the passages."""

    queries: list[str] = Field(default_factory=list)
    pages: list[WebPage] = Field(default_factory=list)
    passages: list[WebPassage] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def evidence(self, task_id: str) -> list[Evidence]:
        """The passages as the run's evidence, ids ``{task_id}-w{n}``, marked ``kind="web"``: the quote is
        the passage (no model statement: ``fact`` repeats it), ``page`` is 1, ``document`` the site's host,
        ``start``/``end`` index the page's extracted text."""
        return [web_evidence(p, task_id) for p in self.passages]


def web_evidence(passage: WebPassage, task_id: str) -> Evidence:
    host = urlsplit(passage.url).hostname or passage.url
    digest = hashlib.sha256(passage.url.encode("utf-8")).hexdigest()[:16]
    return Evidence(
        id=f"{task_id}-{passage.id}",
        task_id=task_id,
        chunk_id=f"web:{digest}:{passage.start}-{passage.end}",
        collection=WEB_COLLECTION,
        document=host,
        page=1,
        heading=passage.title,
        quote=passage.quote,
        start=passage.start,
        end=passage.end,
        fact=passage.quote,
        relevance=passage.score,
        tier_score=passage.score,
        kind="web",
        url=passage.url,
        title=passage.title,
        fetched_at=passage.fetched_at,
    )
