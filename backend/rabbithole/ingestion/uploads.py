"""Where uploaded documents are kept: ``data_dir/uploads/<collection's store name>/<safe file name>``.

The client's file name is reduced to a safe base name (no folders, no control characters, the suffix of
its format, at most NAME_BYTES bytes of UTF-8 so that the temporary name written first fits the file system
too), the folder name comes from the collection name's store slug, and every path is checked to lie inside
the uploads folder: no client-supplied path reaches the file system. The format is the name's (a suffix of
ingestion/formats.py) checked against the content (a PDF's header, a .docx's ZIP, text for HTML, Markdown
and text), or a PDF told by its content alone; a file that is neither is refused under its own name
(``client_file_name``: never given a suffix it does not have), with the reason (``upload_suffix``: empty,
or what its content is)."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from pathlib import Path

from rabbithole.ingestion.content_kind import describe_content
from rabbithole.ingestion.formats import MAGIC_WINDOW, accepted_types, format_of, is_pdf
from rabbithole.store.chroma_store import chroma_collection_name

#: File systems allow 255 bytes per name; the upload is written as ".<name>.partial" first.
PARTIAL_PREFIX = "."
PARTIAL_SUFFIX = ".partial"
NAME_BYTES = 255 - len(PARTIAL_PREFIX) - len(PARTIAL_SUFFIX)
#: the suffix given to a PDF whose name has none of a format read ("scan.bin" -> "scan.bin.pdf")
SUFFIX = ".pdf"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|\ud800-\udfff]+")
#: Characters that belong to the character before them (a cut never separates them from it): the zero
#: width joiner of emoji sequences, variation selectors, skin-tone modifiers and tag characters (marks are
#: told by their category).
_JOINED = re.compile("[\u200d\ufe00-\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


#: What a refusal adds: the types read.
ONLY_TYPES = f"only {accepted_types()} are read"


def upload_suffix(client_name: str | None, content: bytes) -> tuple[str | None, str | None]:
    """The suffix an upload is stored with and, when it cannot be ingested, why (then the suffix is None).
    A name of a format read (.pdf, .docx, .html, .md, ...) keeps its suffix when the content is of that
    format (a PDF by its header, a .docx a ZIP or an encrypted Office file, the text formats text); a
    name of no such format is taken when its content is a PDF's (stored with .pdf added)."""
    if not content:
        return None, f"the file is empty (0 bytes); {ONLY_TYPES}"
    head = content[:MAGIC_WINDOW]
    fmt = format_of(_base_name(client_name))
    if fmt is not None:
        refusal = fmt.refusal(head)
        return (fmt.suffixes[0], None) if refusal is None else (None, f"{refusal}; {ONLY_TYPES}")
    if is_pdf(head):
        return SUFFIX, None
    return None, f"not a type that can be ingested: its content is {describe_content(head)}; {ONLY_TYPES}"


def client_file_name(client_name: str | None) -> str:
    """The last part of the client's name, cleaned (no folders, no control or reserved characters), at
    most NAME_BYTES bytes: the name a refused upload is reported under, as the user knows it."""
    return cut_to_bytes(_base_name(client_name), NAME_BYTES).strip(" .") or "upload"


def safe_file_name(client_name: str | None, suffix: str = SUFFIX) -> str:
    """A base name for an uploaded file: the last part of the client's name, cleaned, ending in ``suffix``
    (lower case; the name's own suffix when it is that one in any case: "Entwurf.DOCX" -> "Entwurf.docx")."""
    name = _base_name(client_name)
    stem = name[: -len(suffix)] if name.lower().endswith(suffix) else name
    stem = cut_to_bytes(stem, NAME_BYTES - len(suffix)).strip(" .") or "upload"
    return f"{stem}{suffix}"


def _base_name(client_name: str | None) -> str:
    """The last part of the client's name (NFC), its unsafe characters replaced, no leading or trailing
    dots and spaces."""
    name = unicodedata.normalize("NFC", client_name or "")
    name = re.split(r"[/\\]", name)[-1]
    return _UNSAFE.sub("_", name).strip(" .")


def cut_to_bytes(text: str, limit: int) -> str:
    """The longest start of ``text`` (NFC) that takes at most ``limit`` bytes of UTF-8, cut between
    characters and never inside a character sequence (a base and its combining marks, an emoji with its
    joiners, modifiers and selectors)."""
    if len(text.encode()) <= limit:
        return text
    end = 0
    size = 0
    for index, char in enumerate(text):
        size += len(char.encode())
        if size > limit:
            break
        if not _continues(text, index + 1):
            end = index + 1
    return text[:end]


def _continues(text: str, index: int) -> bool:
    """Whether the character at ``index`` belongs to the one before it (no cut between them)."""
    if index >= len(text):
        return False
    char = text[index]
    joined = unicodedata.category(char).startswith("M") or _JOINED.match(char) is not None
    return joined or text[index - 1] == "\u200d"


class UploadFolder:
    """The uploads of all collections under ``root`` (``data_dir/uploads``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, collection: str) -> Path:
        return self.root / chroma_collection_name(collection)

    def save(self, collection: str, file_name: str, content: bytes) -> Path:
        """Write one upload (replacing an earlier one of that name); its path. OSError when it cannot be
        written (nothing of it is left then)."""
        fmt = format_of(file_name)
        path = self._inside(collection, safe_file_name(file_name, fmt.suffixes[0] if fmt else SUFFIX))
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{PARTIAL_PREFIX}{path.name}{PARTIAL_SUFFIX}")
        try:
            partial.write_bytes(content)
            partial.replace(path)
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)  # no half-written file stays behind
            raise
        return path

    def find(self, collection: str, file_name: str) -> Path | None:
        """The stored upload named ``file_name`` (a catalog name), if there is one."""
        fmt = format_of(file_name)
        if fmt is None or safe_file_name(file_name, fmt.suffixes[0]) != file_name:
            return None  # not a name an upload can have
        path = self._inside(collection, file_name)
        return path if path.is_file() else None

    def remove(self, collection: str, file_name: str | None = None) -> None:
        """One upload, or (``file_name`` None) all of a collection's."""
        if file_name is not None:
            path = self.find(collection, file_name)
            if path is not None:
                path.unlink()
            return
        folder = self.folder(collection)
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file():
                    path.unlink()
            folder.rmdir()

    def _inside(self, collection: str, name: str) -> Path:
        folder = self.folder(collection).resolve()
        path = (folder / name).resolve()
        if path.parent != folder:
            raise ValueError(f"'{name}' is not a plain file name")
        return path
