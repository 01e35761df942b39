"""Dependencies inside the LLM layer point one way: no module imports, even lazily or for type checking
only, a module that imports it back. Read from the source (every import statement, wherever it is)."""

from __future__ import annotations

import ast
from pathlib import Path

import rabbithole.llm

PACKAGE = "rabbithole.llm"
FOLDER = Path(rabbithole.llm.__file__).parent


def _imports(path: Path) -> set[str]:
    """The modules of the package that ``path`` imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(PACKAGE + "."):
                found.add(node.module)
            elif node.module == PACKAGE:
                found |= {f"{PACKAGE}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(PACKAGE + ".")}
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {f"{PACKAGE}.{p.stem}": p for p in FOLDER.glob("*.py") if p.stem != "__init__"}
    return {name: _imports(path) & set(modules) - {name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import path that leads from a module back to itself (depth-first search)."""
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == path[0]:
                found.append([*path, nxt])
            elif nxt not in path and nxt > path[0]:  # report each cycle once, from its smallest module
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_the_llm_layer_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "rabbithole.llm.structured" in graph["rabbithole.llm.factory"]  # the client uses structured output
    assert cycles(graph) == []


def test_cycle_finder_reports_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
