"""The catalog's part of the OCR languages: a collection's own (collections.ocr_languages), and the
languages each document's OCR pages were read in (documents.ocr_languages; for a document ingested before
they were recorded, the languages its warning "... read by OCR (Tesseract, deu+eng) ..." names)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from sqlalchemy import exists, select, update
from sqlalchemy.orm import Session, sessionmaker

from rabbithole.catalog.tables import CollectionRow, DocumentRow, PageRow
from rabbithole.core.errors import CollectionNotFoundError

#: the languages in the warning ingestion/ocr/scanned.py's describe_reading writes
_WARNED_LANGUAGES = re.compile(r"read by OCR \(Tesseract, ([a-z_+]+)\)")


def spec_of(languages: Sequence[str]) -> str:
    return "+".join(languages)


def languages_of(spec: str) -> tuple[str, ...]:
    return tuple(code for code in spec.split("+") if code)


class OcrLanguageRecords:
    """Mixed into the Catalog (catalog/repository.py), whose sessions it uses."""

    _sessions: sessionmaker[Session]

    def set_ocr_languages(self, collection: str, languages: Sequence[str]) -> None:
        """The collection's own OCR languages (checked by the caller); empty: the server's default."""
        with self._sessions.begin() as session:
            result = session.execute(
                update(CollectionRow)
                .where(CollectionRow.name == collection)
                .values(ocr_languages=spec_of(languages))
            )
            if not result.rowcount:  # type: ignore[attr-defined]
                raise CollectionNotFoundError(collection)

    def ocr_languages(self, collection: str) -> tuple[str, ...]:
        """The collection's own OCR languages; () for the server's default, or for no such collection."""
        with self._sessions() as session:
            spec = session.scalar(select(CollectionRow.ocr_languages).where(CollectionRow.name == collection))
        return languages_of(spec or "")

    def documents_read_by_ocr(self, collection: str) -> dict[str, tuple[str, ...]]:
        """File name -> the languages OCR read it in, for every document with a page read by OCR; () where
        they are not known."""
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, DocumentRow.ocr_languages, DocumentRow.warnings_json)
                .where(
                    DocumentRow.collection_name == collection,
                    # per document, on the pages' key (document_id, number): no scan of every page
                    exists().where(PageRow.document_id == DocumentRow.id, PageRow.source == "ocr"),
                )
                .order_by(DocumentRow.file_name)
            ).all()
        return {name: languages_of(spec) or _warned(warnings) for name, spec, warnings in rows}


def _warned(warnings_json: str) -> tuple[str, ...]:
    for warning in json.loads(warnings_json or "[]"):
        found = _WARNED_LANGUAGES.search(str(warning))
        if found:
            return languages_of(found.group(1))
    return ()
