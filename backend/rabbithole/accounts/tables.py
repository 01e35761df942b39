"""The account tables, in the catalog's database beside its own (SQLite: created at start; PostgreSQL: by
the Alembic migrations, rabbithole/migrations). Secrets are never stored: passwords as Argon2id hashes,
tokens and session ids as SHA-256 digests of 32 random bytes."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class AccountsBase(DeclarativeBase):
    """The account tables (users, tokens, sessions, audit log)."""


class UserRow(AccountsBase):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    is_admin: Mapped[bool] = mapped_column(default=False)
    disabled: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiTokenRow(AccountsBase):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String)
    digest: Mapped[str] = mapped_column(String, unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(nullable=True)


class SessionRow(AccountsBase):
    __tablename__ = "user_sessions"

    digest: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()


class AuditRow(AccountsBase):
    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_at", "at"),
        Index("ix_audit_log_action_user", "action", "user_name", "at"),
        Index("ix_audit_log_action_address", "action", "address", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # the account's name as given (a failed sign-in's may name no account); never a password or token
    user_name: Mapped[str] = mapped_column(String, default="")
    action: Mapped[str] = mapped_column(String)
    target: Mapped[str] = mapped_column(Text, default="")
    address: Mapped[str] = mapped_column(String, default="")


class MembershipRow(AccountsBase):
    """Who may use a collection: its owner (one, who created it or was made so), editors (search, run,
    upload, delete, edit the registry) and readers (search and run)."""

    __tablename__ = "collection_members"

    collection_name: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String)  # owner, editor, reader
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
