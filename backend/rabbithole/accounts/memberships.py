"""Who may use which collection: an owner, editors and readers per collection (accounts mode)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, select

from rabbithole.accounts.database import AccountDatabase
from rabbithole.accounts.tables import MembershipRow, UserRow

Role = Literal["owner", "editor", "reader"]
ROLES: tuple[Role, ...] = ("owner", "editor", "reader")


@dataclass(frozen=True, slots=True)
class Member:
    collection: str
    user_name: str
    role: Role


class Memberships:
    def __init__(self, database: AccountDatabase) -> None:
        self._sessions = database.sessions

    def set(self, collection: str, user_id: int, role: Role) -> None:
        """Give ``user_id`` ``role`` on ``collection`` (replacing a role it had)."""
        with self._sessions.begin() as session:
            row = session.get(MembershipRow, (collection, user_id))
            if row is None:
                session.add(MembershipRow(collection_name=collection, user_id=user_id, role=role))
            else:
                row.role = role

    def remove(self, collection: str, user_id: int) -> None:
        with self._sessions.begin() as session:
            session.execute(
                delete(MembershipRow).where(
                    MembershipRow.collection_name == collection, MembershipRow.user_id == user_id
                )
            )

    def forget_collection(self, collection: str) -> None:
        """A deleted collection's memberships (a new one of that name starts with none)."""
        with self._sessions.begin() as session:
            session.execute(delete(MembershipRow).where(MembershipRow.collection_name == collection))

    def roles_of(self, user_id: int) -> dict[str, Role]:
        """The collections ``user_id`` is a member of, with the role."""
        query = select(MembershipRow.collection_name, MembershipRow.role).where(
            MembershipRow.user_id == user_id
        )
        with self._sessions() as session:
            return {name: role for name, role in session.execute(query)}  # type: ignore[misc]

    def members(self, collection: str) -> list[Member]:
        query = (
            select(UserRow.name, MembershipRow.role)
            .join(UserRow, UserRow.id == MembershipRow.user_id)
            .where(MembershipRow.collection_name == collection)
            .order_by(UserRow.name)
        )
        with self._sessions() as session:
            return [Member(collection, name, role) for name, role in session.execute(query)]  # type: ignore[arg-type]
