"""Translate domain errors into a message on stderr and an exit code. A full disk, however it shows (SQLite's
"database or disk is full", an OSError with ENOSPC), is the domain error ``StorageFullError``: one line and
its exit code, not a traceback."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from rabbithole.core.errors import RabbitholeError

P = ParamSpec("P")
R = TypeVar("R")


def _fail(exc: RabbitholeError) -> typer.Exit:
    from rich.console import Console  # rich only when there is something to print

    logging.getLogger("rabbithole").debug("command failed", exc_info=True)
    Console(stderr=True, soft_wrap=True).print(
        f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True
    )
    return typer.Exit(code=exc.exit_code)


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except RabbitholeError as exc:
            raise _fail(exc) from exc
        except Exception as exc:
            from rabbithole.core.disk_full import disk_full_error

            full = disk_full_error(exc)
            if full is None:
                raise
            raise _fail(full) from exc

    return wrapper
