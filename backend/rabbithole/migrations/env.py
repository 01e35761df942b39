"""Alembic's environment: migrations run on the connection ``rabbithole.migrations.upgrade`` hands over (in
its transaction, under the migration lock), or on ``sqlalchemy.url`` when Alembic's own command line runs
them (``alembic -x`` is not needed: set the option in a config of your own)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from rabbithole.migrations import schema_metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=schema_metadata(), compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    given = context.config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection given and no sqlalchemy.url set")
    with create_engine(url).begin() as connection:
        _run(connection)


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
