"""Translate domain errors into a message on stderr and an exit code."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from rabbithole.core.errors import RabbitholeError

P = ParamSpec("P")
R = TypeVar("R")


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except RabbitholeError as exc:
            from rich.console import Console  # rich only when there is something to print

            logging.getLogger("rabbithole").debug("command failed", exc_info=True)
            Console(stderr=True, soft_wrap=True).print(
                f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True
            )
            raise typer.Exit(code=exc.exit_code) from exc

    return wrapper
