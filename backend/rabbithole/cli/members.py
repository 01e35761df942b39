"""`rabbithole members`: who may use a collection in accounts mode (server.auth = accounts): its owner,
editors (search, run, upload, delete documents, edit the registry) and readers (search and run). A
collection made with `rabbithole ingest` has no members until they are added here; a collection made in
the web app is owned by the account that made it. Administrators see every collection anyway."""

from __future__ import annotations

import json

import typer

from rabbithole.cli.accounts import open_accounts
from rabbithole.cli.errors import handle_errors

members_app = typer.Typer(help="Who may use a collection (server.auth = accounts).", no_args_is_help=True)


@members_app.command("add")
@handle_errors
def add(
    collection: str,
    user: str,
    role: str = typer.Option("reader", "--role", help="reader, editor or owner."),
) -> None:
    """Give USER a ROLE on COLLECTION (replacing a role it had)."""
    from rabbithole.accounts.memberships import ROLES
    from rabbithole.core.errors import InvalidRequestError

    if role not in ROLES:
        raise InvalidRequestError(f"the role is one of {', '.join(ROLES)}, not {role!r}")
    with open_accounts() as accounts:
        account = accounts.users.get(user)
        accounts.memberships.set(collection, account.id, role)  # type: ignore[arg-type]
        accounts.audit.record("user_changed", user, f"{role} of collection {collection}")
    typer.echo(f"{user} is {role} of {collection}")


@members_app.command("remove")
@handle_errors
def remove(collection: str, user: str) -> None:
    """Take USER's role on COLLECTION away."""
    with open_accounts() as accounts:
        account = accounts.users.get(user)
        accounts.memberships.remove(collection, account.id)
        accounts.audit.record("user_changed", user, f"no longer a member of collection {collection}")
    typer.echo(f"{user} is no longer a member of {collection}")


@members_app.command("list")
@handle_errors
def list_members(collection: str, as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """The members of COLLECTION and their roles."""
    with open_accounts() as accounts:
        members = accounts.memberships.members(collection)
    if as_json:
        typer.echo(json.dumps([{"user": m.user_name, "role": m.role} for m in members], indent=2))
        return
    for member in members:
        typer.echo(f"{member.user_name}\t{member.role}")


def register(app: typer.Typer) -> None:
    app.add_typer(members_app, name="members")
