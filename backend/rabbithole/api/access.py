"""Who may see and do what: one Access per request, the only place the permissions are decided.

In server.auth none and token there is one party, the whole server: everything is allowed. In accounts
mode the request's account (api/accounts_auth.py put it in the scope) and its collection roles decide:

* a collection: its members see it (reader: search and run on it; editor: also upload, delete documents,
  edit the registry; owner: also delete it and rebuild it); to anyone else it does not exist (404);
* a run: its creator sees it, and, unless it is private, the members of all its collections; controlling
  it (resume, cancel, delete) is its creator's;
* administrators see and do everything.

Routes get it through FastAPI (``AccessDep``); the app-wide dependency in api/authorize.py applies it to
every route's path parameters, so no route can forget."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Literal

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from rabbithole.accounts.errors import PermissionDeniedError
from rabbithole.accounts.memberships import Role
from rabbithole.accounts.users import User
from rabbithole.api.deps import ServicesDep
from rabbithole.api.spa import route_path
from rabbithole.core.errors import CollectionNotFoundError, RabbitholeError, RunNotFoundError
from rabbithole.runs.store import RunRecord

#: What a request wants of a collection: read (search, run, read documents), write (upload, delete
#: documents, edit the registry), own (delete the collection, rebuild its vectors).
Need = Literal["read", "write", "own"]
_RANK: dict[Role, int] = {"reader": 1, "editor": 2, "owner": 3}
_NEEDED: dict[Need, int] = {"read": 1, "write": 2, "own": 3}
#: The health check, answered to anyone in accounts mode (without the names of collections).
HEALTH_PATH = "/health"
#: The scope key under which the accounts middleware puts the request's Principal.
PRINCIPAL_SCOPE_KEY = "rabbithole.principal"


class NotSignedInError(RabbitholeError):
    http_status = 401
    exit_code = 77


@dataclass(frozen=True, slots=True)
class Principal:
    """The account a request acts for, and how it proved it ("token" or "session")."""

    user: User
    via: Literal["token", "session"]
    session_id: str = field(default="", repr=False)
    csrf_token: str = field(default="", repr=False)


@dataclass(frozen=True, slots=True)
class Access:
    """The permissions of one request. ``principal`` None: not accounts mode, everything is allowed."""

    principal: Principal | None
    roles: dict[str, Role] = field(default_factory=dict)
    #: accounts mode, nobody signed in, on a route open to everyone (GET /health): sees no collection
    anonymous: bool = False

    @property
    def unrestricted(self) -> bool:
        if self.anonymous:
            return False
        return self.principal is None or self.principal.user.is_admin

    @property
    def user_id(self) -> int | None:
        return None if self.principal is None else self.principal.user.id

    def sees_collection(self, name: str) -> bool:
        return self.unrestricted or name in self.roles

    def require_collection(self, name: str, need: Need = "read") -> None:
        """CollectionNotFoundError (404) when the request may not see ``name``; PermissionDeniedError
        (403) when it sees it but its role does not allow ``need``."""
        if self.unrestricted:
            return
        role = self.roles.get(name)
        if role is None:
            raise CollectionNotFoundError(name)
        if _RANK[role] < _NEEDED[need]:
            wanted = {"read": "a member", "write": "an editor", "own": "its owner"}[need]
            raise PermissionDeniedError(
                f"only {wanted} of collection '{name}' may do that (you are a {role})"
            )

    def allows(self, name: str, need: Need) -> bool:
        """Whether the request may do what ``need`` says in collection ``name`` (it sees it, and its role
        is enough)."""
        if self.unrestricted:
            return True
        role = self.roles.get(name)
        return role is not None and _RANK[role] >= _NEEDED[need]

    def visible(self, names: Iterable[str]) -> list[str]:
        """``names`` the request may see, in order."""
        return [n for n in names if self.sees_collection(n)]

    def owns(self, owner: int | None) -> bool:
        """Whether something of account ``owner`` (an Agent Protocol thread not started yet) is the
        request's to see: its own, or any for an administrator or outside accounts mode."""
        return self.unrestricted or (owner is not None and owner == self.user_id)

    def sees_run(self, record: RunRecord) -> bool:
        if self.unrestricted or (record.created_by is not None and record.created_by == self.user_id):
            return True
        return (
            not record.private
            and bool(record.collections)
            and all(c in self.roles for c in record.collections)
        )

    def require_run(self, record: RunRecord, *, control: bool = False) -> None:
        """RunNotFoundError (404) when the request may not see the run; PermissionDeniedError (403) when
        it sees it but wants to control it (resume, cancel, delete) and did not start it."""
        if not self.sees_run(record):
            raise RunNotFoundError(record.id)
        if control and not self.unrestricted and record.created_by != self.user_id:
            raise PermissionDeniedError(f"only the account that started run {record.id} may do that")


async def get_access(request: Request, services: ServicesDep) -> Access:
    """The request's Access (built once per request). Accounts mode without an account in the scope is
    refused (401): a request the accounts middleware did not authenticate gets nothing."""
    cached = getattr(request.state, "access", None)
    if isinstance(cached, Access):
        return cached
    if services.settings.server.auth_mode != "accounts":
        access = Access(None)
    else:
        principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
        if not isinstance(principal, Principal) and route_path(request.scope) == HEALTH_PATH:
            access = Access(None, anonymous=True)  # the health check of a load balancer or a container
            request.state.access = access
            return access
        if not isinstance(principal, Principal):
            raise NotSignedInError("sign in first")
        roles = await run_in_threadpool(services.accounts.memberships.roles_of, principal.user.id)
        access = Access(principal, roles)
    request.state.access = access
    return access


AccessDep = Annotated[Access, Depends(get_access)]
