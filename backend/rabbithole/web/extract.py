"""The main text of a fetched page: trafilatura for HTML (article text without navigation, banners, footers
and comments), the text itself for text/plain. The result is the page text every web passage indexes: one
paragraph a block, blocks separated by a blank line (so sentences never run across paragraphs)."""

from __future__ import annotations

from dataclasses import dataclass

from rabbithole.web.errors import PageSkippedError
from rabbithole.web.fetch import FetchedPage


@dataclass(frozen=True, slots=True)
class ExtractedText:
    title: str
    text: str


def extract_text(page: FetchedPage) -> ExtractedText:
    """The title and main text of ``page`` (CPU work: call it off the event loop); PageSkippedError when it
    holds no text."""
    if page.content_type == "text/plain":
        try:
            text = page.body.decode(page.charset or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            text = page.body.decode("utf-8", errors="replace")
        lines = [line for line in text.splitlines() if line.strip()]
        title = lines[0].strip() if lines else ""
    else:
        import trafilatura

        try:
            document = trafilatura.bare_extraction(
                page.body,
                url=page.final_url,
                include_comments=False,
                include_tables=True,
                with_metadata=True,
            )
        except Exception as exc:  # untrusted markup: a parser failure skips the page, it stops nothing
            raise PageSkippedError(f"{page.final_url}: the page could not be parsed ({exc})") from None
        fields: dict[str, object] = {}
        if isinstance(document, dict):
            fields = document
        elif document is not None:
            fields = document.as_dict()
        text = str(fields.get("text") or "")
        title = str(fields.get("title") or "").strip()
    paragraphs = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if not paragraphs:
        raise PageSkippedError(f"{page.final_url}: no readable text on the page")
    return ExtractedText(title=title or paragraphs[0][:120], text="\n\n".join(paragraphs))
