"""A resolver over parsed documents, without an index: the registry, section labels, heading paths and
document dates come straight from :class:`~rabbithole.core.models.ParsedDocument` objects (the tests and
benchmarks use it on kb/sample; ingestion gives the same labels and paths to the chunks)."""

from __future__ import annotations

from collections.abc import Mapping

from rabbithole.core.models import ParsedDocument
from rabbithole.references.notes import DocumentDates, document_dates
from rabbithole.references.resolver import ReferenceResolver
from rabbithole.references.sections import SectionIndex
from rabbithole.registry import build_registry

__all__ = ["resolver_for_parsed"]

#: characters of a document's text read for its dates (the head of a German federal law)
_HEAD_CHARS = 800


def resolver_for_parsed(collection: str, documents: Mapping[str, ParsedDocument]) -> ReferenceResolver:
    """A resolver over ``documents`` ({file name: parsed document}) as one collection."""
    registry = build_registry(collection, list(documents.values()))
    paths: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for name, document in documents.items():
        first: dict[str, tuple[str, ...]] = {}
        for span in document.sections:
            if span.label and span.label not in first:
                first[span.label] = span.path
        paths[name] = list(first.items())

    def dates(name: str) -> DocumentDates | None:
        document = documents.get(name)
        return document_dates(document.text[:_HEAD_CHARS]) if document is not None else None

    index = SectionIndex(
        lambda name: [label for label, _path in paths.get(name, [])], lambda name: paths.get(name, [])
    )
    return ReferenceResolver(registry, index, dates=dates)
