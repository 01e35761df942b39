"""The user-editable registry file of a collection: ``<collection folder>/registry.yaml``.

Rabbithole only ever *reads* this file; ingestion merges it into the automatically built registry and never
creates, rewrites or formats it. Where it is absent nothing is written into the collection folder. Format::

    # kb/sample/registry.yaml
    version: 1                      # optional; 1 is the only version
    documents:
      AtG.pdf:                      # file name as in the collection folder (a unique stem "AtG" works too)
        synonyms:                   # extra names; case forms are added for names ending in a law noun
          - Atomgesetz
          - AtomG
      StrlSchV.pdf:
        # title and abbreviation replace the parsed ones
        title: Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung
        abbreviation: StrlSchV 2018
      AtDeckV.pdf:
        exclude:                    # drop automatic synonyms (and the case forms derived from them)
          - Atomrechtliche Deckungsvorsorge-Verordnung
      AtKostV.pdf:
        synonyms: Kostenverordnung  # a single name may be given as a plain string

Every key is optional. ``exclude`` matches synonyms case-, article- and umlaut-insensitively ("des
Atomgesetzes" drops that form; "Atomgesetz" drops the name and all its forms); it never drops the user's
own ``synonyms``.

Problems never raise in :func:`load_user_file` (unless ``strict=True``): invalid YAML, a wrong type, an
unknown key or an unknown document become :class:`UserFileProblem` entries with the file and 1-based line,
the rest of the file still applies (invalid YAML: none of it), and the ingested data is never lost.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from rabbithole.core.errors import ConfigurationError

USER_FILE_NAME = "registry.yaml"
SUPPORTED_VERSIONS = frozenset({1})
_ENTRY_KEYS = ("synonyms", "exclude", "title", "abbreviation")
_TOP_KEYS = ("version", "documents")

Severity = Literal["error", "warning"]


class RegistryFileError(ConfigurationError):
    """The registry file cannot be used (raised only by ``load_user_file(..., strict=True)``)."""

    def __init__(self, problems: list[UserFileProblem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class UserFileProblem:
    path: Path
    line: int | None  # 1-based
    message: str
    severity: Severity = "warning"
    column: int | None = None  # 1-based

    def __str__(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message}"


@dataclass(slots=True)
class UserDocumentEntry:
    """What the user file says about one document."""

    file_name: str  # as written in the file
    line: int  # 1-based line of the document key
    synonyms: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    title: str | None = None
    abbreviation: str | None = None
    exclude_lines: dict[str, int] = field(default_factory=dict)  # exclude entry -> line


@dataclass(slots=True)
class UserFile:
    path: Path
    documents: list[UserDocumentEntry] = field(default_factory=list)
    problems: list[UserFileProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def match_documents(
        self, known: Collection[str]
    ) -> tuple[dict[str, UserDocumentEntry], list[UserFileProblem]]:
        """Entries by the collection's file names, and a problem for each entry naming no known document.

        A key matches a file name exactly (Unicode-normalized), else case-insensitively, else by its stem.
        Two entries for the same document: the later one wins, with a warning.
        """
        by_nfc = {_nfc(k): k for k in known}
        by_fold = _unique_index(known, lambda k: _nfc(k).casefold())
        by_stem = _unique_index(known, lambda k: _nfc(Path(k).stem).casefold())
        matched: dict[str, UserDocumentEntry] = {}
        problems: list[UserFileProblem] = []
        for entry in self.documents:
            key = _nfc(entry.file_name)
            target = by_nfc.get(key) or by_fold.get(key.casefold()) or by_stem.get(key.casefold())
            if target is None:
                hint = _closest(entry.file_name, known)
                problems.append(
                    UserFileProblem(
                        self.path,
                        entry.line,
                        f"unknown document '{entry.file_name}': no such file in the collection"
                        + (f" (did you mean '{hint}'?)" if hint else ""),
                    )
                )
                continue
            if target in matched:
                problems.append(
                    UserFileProblem(
                        self.path,
                        entry.line,
                        f"'{target}' is listed twice; the entry on line {entry.line} wins",
                    )
                )
            matched[target] = entry
        return matched, problems


def user_file_path(collection_dir: Path) -> Path:
    """Where the registry file of a collection folder lives: ``<folder>/registry.yaml``."""
    return Path(collection_dir) / USER_FILE_NAME


def load_user_file(path: Path, *, strict: bool = False) -> UserFile:
    """Read and check a registry file; problems are collected (or raised with ``strict=True``).

    A missing file is not a problem: it yields an empty :class:`UserFile`.
    """
    path = Path(path)
    result = UserFile(path)
    if not path.exists():
        return result
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        result.problems.append(UserFileProblem(path, None, f"cannot read the file: {exc}", "error"))
        return _finish(result, strict)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"invalid YAML: {exc.problem or exc.context or 'syntax error'}; the file is ignored"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        result.problems.append(UserFileProblem(path, line, message, "error", column))
        return _finish(result, strict)
    except yaml.YAMLError as exc:
        result.problems.append(
            UserFileProblem(path, None, f"invalid YAML: {exc}; the file is ignored", "error")
        )
        return _finish(result, strict)
    if root is None or _is_null(root):
        return result  # empty file
    if not isinstance(root, yaml.MappingNode):
        result.problems.append(
            UserFileProblem(path, _line(root), "the file must be a mapping with a 'documents:' key", "error")
        )
        return _finish(result, strict)
    documents_node: yaml.Node | None = None
    for key_node, value_node in root.value:
        key = _scalar(key_node)
        if key == "version":
            version = _scalar(value_node)
            if version is None or not version.isdigit() or int(version) not in SUPPORTED_VERSIONS:
                result.problems.append(
                    UserFileProblem(
                        path, _line(value_node), f"unsupported version {version!r}; expected 1", "error"
                    )
                )
                return _finish(result, strict)
        elif key == "documents":
            documents_node = value_node
        else:
            hint = " (document entries belong under 'documents:')" if key and "." in key else ""
            result.problems.append(
                UserFileProblem(
                    path, _line(key_node), f"unknown key {key!r} ignored{hint}; expected one of {_TOP_KEYS}"
                )
            )
    if documents_node is None or _is_null(documents_node):
        return _finish(result, strict)
    if not isinstance(documents_node, yaml.MappingNode):
        result.problems.append(
            UserFileProblem(
                path, _line(documents_node), "'documents' must map file names to entries", "error"
            )
        )
        return _finish(result, strict)
    for key_node, value_node in documents_node.value:
        file_name = _scalar(key_node)
        if not file_name:
            result.problems.append(
                UserFileProblem(path, _line(key_node), "a document key must be a file name")
            )
            continue
        entry = _parse_entry(path, file_name, key_node, value_node, result.problems)
        if entry is not None:
            result.documents.append(entry)
    return _finish(result, strict)


def render_user_file(documents: Collection[str], comment: str | None = None) -> str:
    """A starter registry file listing the given documents (for a CLI to offer; ingestion never writes it)."""
    lines = [
        "# Document registry of this collection: extra names for its documents.",
        "# Rabbithole only reads this file. Per document (all keys optional):",
        "#   synonyms: [names]   exclude: [automatic names to drop]   title: ...   abbreviation: ...",
    ]
    if comment:
        lines.extend(f"# {line}" for line in comment.splitlines())
    lines.append("version: 1")
    lines.append("documents:")
    for name in documents:
        lines.append(f"  {_yaml_key(name)}:")
        lines.append("    synonyms: []")
    if not documents:
        lines[-1] = "documents: {}"
    return "\n".join(lines) + "\n"


def _parse_entry(
    path: Path, file_name: str, key_node: yaml.Node, node: yaml.Node, problems: list[UserFileProblem]
) -> UserDocumentEntry | None:
    entry = UserDocumentEntry(file_name, _line(key_node))
    if _is_null(node):
        return entry
    if not isinstance(node, yaml.MappingNode):
        problems.append(
            UserFileProblem(
                path,
                _line(node),
                f"entry of '{file_name}' must be a mapping (synonyms/exclude/title/abbreviation)",
            )
        )
        return None
    for sub_key_node, value in node.value:
        key = _scalar(sub_key_node)
        if key in ("synonyms", "exclude"):
            items = _string_list(path, file_name, key, value, problems)
            if key == "synonyms":
                entry.synonyms.extend(text for text, _line_no in items)
            else:
                for text, line_no in items:
                    entry.exclude.append(text)
                    entry.exclude_lines[text] = line_no
        elif key in ("title", "abbreviation"):
            scalar = _scalar(value) if isinstance(value, yaml.ScalarNode) else None
            if scalar is None or not scalar.strip():
                problems.append(
                    UserFileProblem(
                        path, _line(value), f"'{key}' of '{file_name}' must be a non-empty string; ignored"
                    )
                )
                continue
            setattr(entry, key, " ".join(scalar.split()))
        else:
            problems.append(
                UserFileProblem(
                    path,
                    _line(sub_key_node),
                    f"unknown key {key!r} in the entry of '{file_name}' ignored; "
                    f"expected one of {_ENTRY_KEYS}",
                )
            )
    return entry


def _string_list(
    path: Path, file_name: str, key: str, node: yaml.Node, problems: list[UserFileProblem]
) -> list[tuple[str, int]]:
    if _is_null(node):
        return []
    if isinstance(node, yaml.ScalarNode):
        nodes: list[yaml.Node] = [node]
    elif isinstance(node, yaml.SequenceNode):
        nodes = list(node.value)
    else:
        problems.append(
            UserFileProblem(path, _line(node), f"'{key}' of '{file_name}' must be a list of names")
        )
        return []
    out: list[tuple[str, int]] = []
    for item in nodes:
        text = _scalar(item) if isinstance(item, yaml.ScalarNode) else None
        if text is None or not text.strip():
            problems.append(
                UserFileProblem(
                    path, _line(item), f"'{key}' of '{file_name}': expected a name, got {_describe(item)}"
                )
            )
            continue
        out.append((" ".join(text.split()), _line(item)))
    return out


def _finish(result: UserFile, strict: bool) -> UserFile:
    if strict and result.problems:
        raise RegistryFileError(result.problems)
    return result


def _scalar(node: yaml.Node) -> str | None:
    if not isinstance(node, yaml.ScalarNode) or _is_null(node):
        return None
    value = node.value
    return value if isinstance(value, str) else str(value)


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "nothing" if _is_null(node) else repr(getattr(node, "value", node))


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _unique_index(names: Collection[str], key: Callable[[str], str]) -> dict[str, str]:
    index: dict[str, str] = {}
    clashes: set[str] = set()
    for name in names:
        k = key(name)
        if k in index and index[k] != name:
            clashes.add(k)
        index[k] = name
    for k in clashes:
        del index[k]
    return index


def _closest(name: str, known: Collection[str]) -> str | None:
    from rapidfuzz import fuzz, process

    found = process.extractOne(name, list(known), scorer=fuzz.ratio, score_cutoff=70)
    return str(found[0]) if found else None


def _yaml_key(name: str) -> str:
    dumped = yaml.safe_dump(name, allow_unicode=True, default_flow_style=True, width=10_000).strip()
    return dumped.removesuffix("...").strip()
