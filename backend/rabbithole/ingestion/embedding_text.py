"""What the embedder is given for a chunk, and each chunk's token count.

A chunk is embedded with its context in front: ``"<document label> <section> <heading>\\n<text>"``. Its
token count (what trace's budgets spend) is the count of its text alone. When the embedder counts the
tokens of what it embeds in the token counter's own tokenizer (the USE model's SentencePiece pieces), the
text's count is the embedded input's count less its context's: no piece of that model spans a word
boundary, so the two parts segment independently (the tests hold it against a count of the text alone).
Counting 1,000 chunks costs half a second of CPU the embedder would otherwise lose to it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rabbithole.core.models import Chunk, ParsedDocument


def document_label(abbreviation: str | None, title: str | None, file_name: str) -> str:
    """How a document is named in front of its chunks: its abbreviation, else its title, else its file."""
    return abbreviation or title or file_name


def labelled_context(label: str, chunk: Chunk) -> str:
    """The document label and section context put in front of a chunk's text ("" when there is none)."""
    return " ".join(part for part in (label, chunk.section or "", chunk.heading) if part)


def labelled_input(label: str, chunk: Chunk) -> str:
    """What the embedder sees for a chunk of the document labelled ``label`` (a rebuild from the catalog
    gives it the same input as the ingestion did)."""
    head = labelled_context(label, chunk)
    return f"{head}\n{chunk.text}" if head else chunk.text


def embedding_context(doc: ParsedDocument, chunk: Chunk) -> str:
    """The document and section context put in front of a chunk's text ("" when there is none)."""
    return labelled_context(document_label(doc.abbreviation, doc.title, doc.file_name), chunk)


def embedding_input(doc: ParsedDocument, chunk: Chunk) -> str:
    """What the embedder sees: the passage with its document and section context in front."""
    return labelled_input(document_label(doc.abbreviation, doc.title, doc.file_name), chunk)


def text_token_counts(
    doc: ParsedDocument,
    chunks: Sequence[Chunk],
    input_counts: Sequence[int],
    count_many: Callable[[Sequence[str]], list[int]],
) -> list[int]:
    """The token counts of the chunks' texts, from the counts of their embedding inputs (in the same
    tokenizer) and ``count_many`` applied to their distinct contexts only."""
    if len(input_counts) != len(chunks):
        raise ValueError(f"{len(input_counts)} token counts for {len(chunks)} chunks")
    heads = [embedding_context(doc, chunk) for chunk in chunks]
    distinct = list(dict.fromkeys(head for head in heads if head))
    head_counts = dict(zip(distinct, count_many(distinct), strict=True)) if distinct else {}
    pairs = zip(input_counts, heads, strict=True)
    return [total - head_counts[head] if head else total for total, head in pairs]
