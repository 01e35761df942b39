"""`rabbithole users`, `rabbithole tokens` and `rabbithole audit`: the accounts of a shared server
(server.auth = accounts), in the database of database.url or the SQLite catalog. A password is never an
argument (it would stay in the shell's history): it is asked for, or read from stdin (--password-stdin)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from rabbithole.cli.errors import handle_errors

if TYPE_CHECKING:
    from rabbithole.accounts.service import AccountService

users_app = typer.Typer(help="Accounts of a shared server (server.auth = accounts).", no_args_is_help=True)
tokens_app = typer.Typer(help="Personal API tokens of an account.", no_args_is_help=True)

PASSWORD_STDIN = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line.")


@contextmanager
def open_accounts() -> Iterator[AccountService]:
    from rabbithole.accounts.service import AccountService
    from rabbithole.core.config import load_settings

    settings = load_settings()
    settings.storage.data_dir.mkdir(parents=True, exist_ok=True)
    accounts = AccountService.open(
        settings.accounts,
        settings.storage.catalog_path,
        settings.storage.sqlite_busy_timeout_ms,
        url=settings.database.url,
    )
    try:
        yield accounts
    finally:
        accounts.close()


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _when(value: object) -> str:
    return value.isoformat(timespec="seconds") if value is not None else "-"  # type: ignore[attr-defined]


@users_app.command("add")
@handle_errors
def add(
    name: str,
    admin: bool = typer.Option(False, "--admin", help="An administrator: sees and may do everything."),
    password_stdin: bool = PASSWORD_STDIN,
) -> None:
    """Add an account."""
    with open_accounts() as accounts:
        user = accounts.add_user(name, _password(password_stdin), is_admin=admin)
    typer.echo(f"added {user.name}{' (admin)' if user.is_admin else ''}")


@users_app.command("list")
@handle_errors
def list_users(as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """List the accounts."""
    with open_accounts() as accounts:
        users = accounts.users.list()
    rows = [
        {"name": u.name, "admin": u.is_admin, "disabled": u.disabled, "created_at": _when(u.created_at)}
        for u in users
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        flags = [f for f, on in (("admin", row["admin"]), ("disabled", row["disabled"])) if on]
        typer.echo(f"{row['name']}\t{', '.join(flags) or '-'}\tsince {row['created_at']}")


@users_app.command("disable")
@handle_errors
def disable(name: str) -> None:
    """Disable an account: its sessions and tokens stop working at once."""
    with open_accounts() as accounts:
        accounts.set_disabled(name, True)
    typer.echo(f"disabled {name}")


@users_app.command("enable")
@handle_errors
def enable(name: str) -> None:
    """Enable a disabled account again."""
    with open_accounts() as accounts:
        accounts.set_disabled(name, False)
    typer.echo(f"enabled {name}")


@users_app.command("reset-password")
@handle_errors
def reset_password(name: str, password_stdin: bool = PASSWORD_STDIN) -> None:
    """Set a new password; the account's sessions end."""
    with open_accounts() as accounts:
        accounts.reset_password(name, _password(password_stdin))
    typer.echo(f"new password set for {name}")


@users_app.command("make-admin")
@handle_errors
def make_admin(
    name: str, revoke: bool = typer.Option(False, "--revoke", help="Take the administrator role away.")
) -> None:
    """Make an account an administrator (or, with --revoke, no longer one)."""
    with open_accounts() as accounts:
        accounts.set_admin(name, not revoke)
    typer.echo(f"{name} is {'no longer ' if revoke else ''}an administrator")


@tokens_app.command("create")
@handle_errors
def create_token(
    user: str, name: str = typer.Option("token", "--name", help="What the token is for.")
) -> None:
    """Create a personal API token for USER; it is shown once (clients send `Authorization: Bearer TOKEN`)."""
    with open_accounts() as accounts:
        record, secret = accounts.create_token(user, name)
    typer.echo(f"token {record.id} ({record.name}) for {user}; shown once, keep it:", err=True)
    typer.echo(secret)


@tokens_app.command("list")
@handle_errors
def list_tokens(user: str) -> None:
    """List USER's tokens (never the tokens themselves)."""
    with open_accounts() as accounts:
        tokens = accounts.list_tokens(user)
    for t in tokens:
        state = f"revoked {_when(t.revoked_at)}" if t.revoked_at else "active"
        typer.echo(
            f"{t.id}\t{t.name}\tcreated {_when(t.created_at)}\tlast used {_when(t.last_used_at)}\t{state}"
        )


@tokens_app.command("revoke")
@handle_errors
def revoke_token(user: str, token_id: int) -> None:
    """Revoke USER's token TOKEN_ID: it stops working at once."""
    with open_accounts() as accounts:
        accounts.revoke_token(user, token_id)
    typer.echo(f"revoked token {token_id} of {user}")


def register(app: typer.Typer) -> None:
    app.add_typer(users_app, name="users")
    app.add_typer(tokens_app, name="tokens")

    @app.command()
    @handle_errors
    def audit(
        user: str | None = typer.Option(None, "--user", help="Only this account's entries."),
        action: str | None = typer.Option(None, "--action", help="Only this action (e.g. sign_in_failed)."),
        limit: int = typer.Option(100, "--limit", min=1, max=100_000, help="The newest N entries."),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """The audit log, newest first: sign-ins, failed sign-ins, uploads, deletions, runs started, PDFs
        opened, account changes."""
        with open_accounts() as accounts:
            entries = accounts.audit.entries(user_name=user, action=action, limit=limit)
        rows = [
            {
                "at": _when(e.at),
                "user": e.user_name,
                "action": e.action,
                "target": e.target,
                "address": e.address,
            }
            for e in entries
        ]
        if as_json:
            typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
            return
        for r in rows:
            typer.echo(
                "\t".join((r["at"], r["user"] or "-", r["action"], r["target"] or "-", r["address"] or "-"))
            )
