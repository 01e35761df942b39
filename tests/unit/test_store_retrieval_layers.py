"""Dependencies between the vector store and retrieval point one way: retrieval uses the store, the store
never imports retrieval (not even for type checking), so either can be loaded and tested on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import rabbithole

PACKAGE = Path(rabbithole.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` in the file names (absolute names only)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


def test_imported_modules_sees_type_checking_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from rabbithole.retrieval.hybrid import X\n",
        encoding="utf-8",
    )
    assert "rabbithole.retrieval.hybrid" in imported_modules(source)


def test_store_does_not_import_retrieval() -> None:
    offenders = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in sorted((PACKAGE / "store").rglob("*.py"))
        for module in imported_modules(path)
        if module == "rabbithole.retrieval" or module.startswith("rabbithole.retrieval.")
    }
    assert not offenders, offenders


def test_store_metadata_and_filters_agree_on_section_keys() -> None:
    from rabbithole.core.models import Chunk
    from rabbithole.retrieval.filters import SearchFilters
    from rabbithole.store.chroma_store import chunk_metadata

    chunk = Chunk("c1", "sample", "StrlSchG.pdf", 0, "text", 0, 4, 1, 1, " §  80 ", "§ 80 Grenzwerte")
    where = SearchFilters.create(sections="§80").to_chroma_where()
    assert where == {"section_key": {"$eq": chunk_metadata(chunk)["section_key"]}}


def test_store_metadata_holds_exactly_the_fields_the_filters_use() -> None:
    """Chroma indexes every metadata field it is given: a field no filter uses only slows each write, and a
    filter over a field that is not stored would match nothing."""
    from rabbithole.core.models import Chunk
    from rabbithole.retrieval.filters import SearchFilters
    from rabbithole.store.chroma_store import chunk_metadata

    chunk = Chunk("c1", "sample", "StrlSchG.pdf", 0, "text", 0, 4, 1, 2, "§ 80", "§ 80 Grenzwerte")
    where = SearchFilters.create(
        documents="StrlSchG.pdf", sections="§ 80", page_from=1, page_to=2
    ).to_chroma_where()
    assert where is not None
    assert {field for clause in where["$and"] for field in clause} == set(chunk_metadata(chunk))
