"""Per-collection document registry: which document a name like "des Atomgesetzes" refers to.

``build_registry`` (ingestion) -> ``DocumentRegistry`` (``resolve``, ``to_dict``/``from_dict``); the user's
``<collection>/registry.yaml`` is read and merged, never written. See ``registry.py``, ``mining.py``,
``synonyms.py`` and ``user_file.py``.
"""

from rabbithole.registry.builder import build_registry
from rabbithole.registry.registry import (
    DocumentEntry,
    DocumentInfo,
    DocumentRegistry,
    MatchKind,
    RegistryDataError,
    Resolution,
    Synonym,
    SynonymKind,
    SynonymSource,
)
from rabbithole.registry.user_file import (
    USER_FILE_NAME,
    RegistryFileError,
    UserFile,
    UserFileProblem,
    load_user_file,
    render_user_file,
    user_file_path,
)

__all__ = [
    "USER_FILE_NAME",
    "DocumentEntry",
    "DocumentInfo",
    "DocumentRegistry",
    "MatchKind",
    "RegistryDataError",
    "RegistryFileError",
    "Resolution",
    "Synonym",
    "SynonymKind",
    "SynonymSource",
    "UserFile",
    "UserFileProblem",
    "build_registry",
    "load_user_file",
    "render_user_file",
    "user_file_path",
]
