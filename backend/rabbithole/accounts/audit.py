"""The audit log: who signed in (or failed to), uploaded, deleted, started a run or opened a PDF, and when.
Entries name the account and what was acted on, never a password or a token."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, select

from rabbithole.accounts.database import AccountDatabase, aware
from rabbithole.accounts.tables import AuditRow

AuditAction = Literal[
    "sign_in",
    "sign_in_failed",
    "sign_out",
    "upload",
    "delete",
    "run_started",
    "pdf_opened",
    "user_added",
    "user_changed",
    "token_created",
    "token_revoked",
]


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    at: datetime
    user_name: str
    action: str
    target: str
    address: str


class AuditLog:
    def __init__(self, database: AccountDatabase) -> None:
        self._sessions = database.sessions

    def record(self, action: AuditAction, user_name: str, target: str = "", address: str = "") -> None:
        with self._sessions.begin() as session:
            session.add(
                AuditRow(
                    action=action, user_name=user_name[:200], target=target[:1000], address=address[:100]
                )
            )

    def entries(
        self, *, user_name: str | None = None, action: str | None = None, limit: int = 100
    ) -> list[AuditEntry]:
        """Newest first."""
        query = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
        if user_name is not None:
            query = query.where(AuditRow.user_name == user_name)
        if action is not None:
            query = query.where(AuditRow.action == action)
        with self._sessions() as session:
            return [
                AuditEntry(r.id, aware(r.at), r.user_name, r.action, r.target, r.address)
                for r in session.scalars(query)
            ]

    def failed_sign_ins_since(self, since: datetime, *, user_name: str = "", address: str = "") -> int:
        """Failed sign-ins of ``user_name`` (or from ``address``) since ``since``: the rate limit's count,
        shared by every server process on the database."""
        query = select(func.count()).select_from(AuditRow)
        query = query.where(AuditRow.action == "sign_in_failed", AuditRow.at >= since)
        if user_name:
            query = query.where(AuditRow.user_name == user_name)
        if address:
            query = query.where(AuditRow.address == address)
        with self._sessions() as session:
            return int(session.scalar(query) or 0)
