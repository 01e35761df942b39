"""The runs layer owns a run's life; the research graphs never touch run storage. Imports point one way:
``runs/`` uses ``research/`` (the graphs, their context, the result model), and no module under ``research/``
imports ``runs/``, the API or the composition root, nor a database library for run storage (the runs table,
the event log and the claims are ``runs/``'s; LangGraph's checkpointer in ``research/checkpoint.py`` is the
graphs' own state)."""

from __future__ import annotations

import ast
from pathlib import Path

import rabbithole

PACKAGE = Path(rabbithole.__file__).resolve().parent
#: What research/ must not import: the runs layer, the server, the composition root, run storage's library.
FORBIDDEN = ("rabbithole.runs", "rabbithole.api", "rabbithole.services", "sqlalchemy")


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` in the file names (absolute names; also under
    ``if TYPE_CHECKING:`` and inside functions)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def offenders(package: str, forbidden: tuple[str, ...]) -> set[str]:
    return {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for module in imported_modules(path)
        if any(module == name or module.startswith(f"{name}.") for name in forbidden)
    }


def test_imported_modules_sees_imports_in_functions_and_type_checking_blocks(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from rabbithole.runs.store import RunStore\n"
        "def f():\n"
        "    from rabbithole import runs\n",
        encoding="utf-8",
    )
    found = imported_modules(source)
    assert "rabbithole.runs.store" in found and "rabbithole.runs" in found


def test_research_imports_neither_the_runs_layer_nor_run_storage() -> None:
    assert not offenders("research", FORBIDDEN)


def test_the_runs_layer_imports_no_server() -> None:
    """The runs layer serves the API and the CLI alike: it imports neither."""
    assert not offenders("runs", ("rabbithole.api", "rabbithole.cli"))
