"""The README's table of `rabbithole` exit codes is the code's: every domain error and every EXIT_* constant
of the CLI sits in the row of its code, and nothing the table names is stale."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

from typer.testing import CliRunner

import rabbithole.cli
from rabbithole.cli.main import app
from rabbithole.core import errors

README = Path(__file__).resolve().parents[2] / "README.md"


def documented() -> dict[int, set[str]]:
    """{code: the names in its "raised as" cell} from the README's "Exit codes" table."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    rows: dict[int, set[str]] = {}
    for line in section.splitlines():
        match = re.match(r"\|\s*(\d+)\s*\|.*\|(.*)\|\s*$", line)
        if match:
            code = int(match.group(1))
            assert code not in rows, f"code {code} has two rows"
            rows[code] = set(re.findall(r"`(\w+)`", match.group(2)))
    return rows


def error_codes() -> dict[str, int]:
    """Every domain error class and its CLI exit code."""
    return {
        name: cls.exit_code
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.RabbitholeError)
    }


def cli_exit_constants() -> dict[str, int]:
    """The EXIT_* constants of every module of the CLI package."""
    found: dict[str, int] = {}
    for info in pkgutil.iter_modules(rabbithole.cli.__path__):
        module = importlib.import_module(f"rabbithole.cli.{info.name}")
        for name, value in vars(module).items():
            if name.startswith("EXIT_") and isinstance(value, int):
                assert found.get(name, value) == value, f"{name} differs between modules"
                found[name] = value
    return found


def test_every_error_and_exit_constant_is_in_the_row_of_its_code() -> None:
    table = documented()
    codes = {**error_codes(), **cli_exit_constants()}
    assert "EXIT_PARTIAL" in codes and "EXIT_WAITING" in codes
    for name, code in codes.items():
        assert code in table, f"exit code {code} ({name}) is not in the README's table"
        assert name in table[code], f"{name} exits with {code}, but the README's row {code} does not name it"


def test_the_table_names_nothing_stale() -> None:
    codes = {**error_codes(), **cli_exit_constants()}
    for code, names in documented().items():
        for name in names:
            actual = codes.get(name)
            assert actual == code, f"the README's row {code} names {name}, which exits with {actual}"


def test_success_and_usage_errors_have_their_rows() -> None:
    table = documented()
    usage = CliRunner().invoke(app, ["collections", "--no-such-option"])
    assert usage.exit_code == 2
    assert {0, 2} <= table.keys()
