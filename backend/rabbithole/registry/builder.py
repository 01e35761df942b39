"""Building a collection's registry at ingestion: the documents' own titles and abbreviations, short names
mined from the whole collection, their case forms, and the user's ``registry.yaml`` merged on top."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rabbithole.core.models import ParsedDocument
from rabbithole.registry.mining import MinedName, abbreviation_groups, mine_short_names
from rabbithole.registry.registry import (
    ABBREVIATION_LIKE,
    KIND_RANK,
    DocumentEntry,
    DocumentInfo,
    DocumentRegistry,
    Synonym,
    SynonymKind,
    SynonymSource,
)
from rabbithole.registry.synonyms import (
    clean_name,
    head_gender,
    name_forms,
    normalize_key,
    split_year,
    title_and_abbreviation,
    title_forms,
)
from rabbithole.registry.user_file import USER_FILE_NAME, UserDocumentEntry, UserFileProblem, load_user_file

log = logging.getLogger(__name__)


def build_registry(
    collection: str,
    documents: Sequence[DocumentInfo | ParsedDocument],
    texts: Mapping[str, str] | Iterable[str] | None = None,
    user_file: Path | None = None,
) -> DocumentRegistry:
    """Build a collection's registry from its documents, their texts and the user's registry file.

    ``texts``: the documents' texts for mining short names, as {file name: text} or any iterable of texts;
    None takes them from ``documents`` that are :class:`ParsedDocument`. ``user_file``: the collection's
    ``registry.yaml`` (see :func:`.user_file.user_file_path`); read only, merged over the automatic
    synonyms; a missing file is fine, a broken one becomes ``problems`` (for the caller to log or show:
    "<file>:<line>: warning: ...") and never stops the build.
    """
    infos: list[DocumentInfo] = []
    seen: set[str] = set()
    for document in documents:
        info = DocumentInfo.from_parsed(document) if isinstance(document, ParsedDocument) else document
        if info.file_name in seen:
            continue
        seen.add(info.file_name)
        infos.append(info)
    if texts is None:
        text_iter: Iterable[str] = [d.text for d in documents if isinstance(d, ParsedDocument)]
    elif isinstance(texts, Mapping):
        text_iter = texts.values()
    else:
        text_iter = texts

    warnings: list[str] = []
    overrides: dict[str, UserDocumentEntry] = {}
    problems: list[UserFileProblem] = []
    if user_file is not None:
        try:
            loaded = load_user_file(user_file)
            problems.extend(loaded.problems)
            if loaded.ok:
                overrides, unknown = loaded.match_documents([i.file_name for i in infos])
                problems.extend(unknown)
        except Exception as exc:  # the user's file must never cost the ingested data
            log.exception("cannot apply %s", user_file)
            problems.append(UserFileProblem(Path(user_file), None, f"cannot apply the file: {exc}", "error"))
            overrides = {}

    titles: dict[str, tuple[str, SynonymSource]] = {}
    abbreviations: dict[str, tuple[str, SynonymSource]] = {}
    for info in infos:
        user = overrides.get(info.file_name)
        title, abbreviation = title_and_abbreviation(info.title, info.abbreviation)
        titles[info.file_name] = (title, SynonymSource.AUTO)
        abbreviations[info.file_name] = (abbreviation, SynonymSource.AUTO)
        if user is not None and user.title:
            titles[info.file_name] = (clean_name(user.title), SynonymSource.USER)
        if user is not None and user.abbreviation:
            abbreviations[info.file_name] = (clean_name(user.abbreviation), SynonymSource.USER)

    mining = mine_short_names(
        [(i.file_name, _mining_abbreviation(abbreviations[i.file_name][0], i.file_name)) for i in infos],
        text_iter,
    )
    for name, docs in mining.ambiguous.items():
        warnings.append(f"short name '{name}' fits several documents ({', '.join(docs)}); left out")

    entries: list[DocumentEntry] = []
    for info in infos:
        title, title_source = titles[info.file_name]
        abbreviation, abbreviation_source = abbreviations[info.file_name]
        synonyms = _auto_synonyms(info.file_name, title, title_source, abbreviation, abbreviation_source,
                                  mining.for_document(info.file_name))  # fmt: skip
        user = overrides.get(info.file_name)
        if user is not None:
            synonyms, unused = _apply_user_entry(synonyms, user)
            for text in unused:
                problems.append(
                    UserFileProblem(
                        Path(user_file or USER_FILE_NAME),
                        user.exclude_lines.get(text),
                        f"exclude '{text}' of '{info.file_name}' matches no automatic synonym",
                    )
                )
        entries.append(
            DocumentEntry(info.file_name, title, abbreviation, synonyms, title_source, abbreviation_source)
        )

    for problem in problems:
        log.debug("registry file problem: %s", problem)
        warnings.append(str(problem))
    return DocumentRegistry(collection, entries, warnings=warnings, ambiguous=mining.ambiguous)


def _mining_abbreviation(abbreviation: str, file_name: str) -> str:
    """The abbreviation to fit names to; a file stem that looks like one ("AtG.pdf") when none is stated."""
    if abbreviation:
        return abbreviation
    stem = Path(file_name).stem
    if (
        ABBREVIATION_LIKE.match(stem)
        and abbreviation_groups(stem) is not None
        and sum(c.isupper() for c in stem) >= 2
    ):
        return stem
    return ""


def _auto_synonyms(
    file_name: str,
    title: str,
    title_source: SynonymSource,
    abbreviation: str,
    abbreviation_source: SynonymSource,
    mined: Sequence[MinedName],
) -> list[Synonym]:
    out: list[Synonym] = []
    if title:
        out.append(Synonym(title, SynonymKind.TITLE, title_source))
        out.extend(Synonym(f, SynonymKind.CASE_FORM, title_source, title) for f in title_forms(title)[1:])
    if abbreviation:
        out.append(Synonym(abbreviation, SynonymKind.ABBREVIATION, abbreviation_source))
        base, year = split_year(abbreviation)
        if year is not None:
            out.append(Synonym(base, SynonymKind.ABBREVIATION, abbreviation_source, abbreviation))
    for name in mined:
        confidence = round(name.confidence, 3)
        out.append(Synonym(name.name, SynonymKind.SHORT_NAME, SynonymSource.AUTO, None, confidence))
        out.extend(
            Synonym(f, SynonymKind.CASE_FORM, SynonymSource.AUTO, name.name, confidence)
            for f in name_forms(name.name)[1:]
        )
    out.append(Synonym(file_name, SynonymKind.FILE))
    stem = Path(file_name).stem
    if stem and stem != file_name:
        out.append(Synonym(stem, SynonymKind.FILE, base=file_name))
    return _dedupe(out)


def _apply_user_entry(synonyms: list[Synonym], user: UserDocumentEntry) -> tuple[list[Synonym], list[str]]:
    """Drop excluded automatic synonyms, add the user's; returns them and the excludes that matched none."""
    excluded = {normalize_key(text): text for text in user.exclude}
    used: set[str] = set()
    kept: list[Synonym] = []
    for synonym in synonyms:
        keys = {normalize_key(synonym.text)}
        if synonym.base is not None:
            keys.add(normalize_key(synonym.base))
        hit = keys & excluded.keys()
        if synonym.source is SynonymSource.AUTO and hit:
            used.update(hit)
            continue
        kept.append(synonym)
    for text in user.synonyms:
        kept.append(Synonym(text, SynonymKind.USER, SynonymSource.USER))
        kept.extend(
            Synonym(f, SynonymKind.CASE_FORM, SynonymSource.USER, text) for f in _user_forms(text)[1:]
        )
    unused = [text for key, text in excluded.items() if key not in used]
    return _dedupe(kept), unused


def _user_forms(text: str) -> list[str]:
    """Case forms of a user synonym: as a title ("Gesetz über ...") or as a name ("Atomgesetz")."""
    words = clean_name(text).split(" ")
    if len(words) >= 3 and head_gender(words[0]) is not None and words[0][:1].isupper():
        return title_forms(text)
    if head_gender(words[-1].rsplit("-", 1)[-1]) is not None:
        return name_forms(text)
    return [text]


def _dedupe(synonyms: Iterable[Synonym]) -> list[Synonym]:
    """One synonym per text: the highest-ranked kind wins, first seen among equals."""
    best: dict[str, Synonym] = {}
    order: list[str] = []
    for synonym in synonyms:
        current = best.get(synonym.text)
        if current is None:
            order.append(synonym.text)
            best[synonym.text] = synonym
        elif KIND_RANK[synonym.kind] < KIND_RANK[current.kind]:
            best[synonym.text] = synonym
    return [best[text] for text in order]
