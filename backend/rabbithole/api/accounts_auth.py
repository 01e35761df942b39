"""The accounts mode's authentication (server.auth = accounts), a pure ASGI middleware in front of every
route: it finds the request's account and puts it in the scope (api/access.py decides what it may do).

* `Authorization: Bearer rht_...`: a personal token, not revoked, of an enabled account. A token is read
  from that header only, never from the query string (where logs and browser histories keep it).
* The session cookie (HttpOnly, SameSite=Strict; POST /api/session): a session that has not ended, of an
  enabled account. A request that changes something (not GET/HEAD/OPTIONS) must also send the session's
  CSRF token in `X-CSRF-Token` (the web app reads it from GET /api/session); a page on another origin can
  neither read it nor, without a CORS preflight, send the header. The cross-origin guard in front refuses
  such requests besides.
* Neither: 401, except for what holds no data (the documentation, the web app's files), the sign-in itself
  (POST /api/session), GET /api/session, which says whether the request is signed in, and GET /health
  (a load balancer's or a container's check; it names no collection to a client not signed in).

The protocols are behind it too: the Agent Protocol (/api/langgraph; its threads are runs, checked by
api/authorize.py) and MCP over HTTP (/mcp; its tools read the request's account, mcp/backend.py)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rabbithole.accounts.service import AccountService
from rabbithole.accounts.sessions import csrf_matches
from rabbithole.api.access import HEALTH_PATH, PRINCIPAL_SCOPE_KEY, Principal
from rabbithole.api.audit_trail import audited
from rabbithole.api.origin_guard import SAFE_METHODS
from rabbithole.api.refusals import header, refuse
from rabbithole.api.security import SESSION_COOKIE, SESSION_PATH, cookie_value, needs_no_token
from rabbithole.api.spa import route_path

log = logging.getLogger(__name__)

CSRF_HEADER = b"x-csrf-token"
#: How often a long answer (an event stream) checks its credential again.
RECHECK_S = 5.0


class AccountGone(Exception):
    """A long answer's account no longer signs in (disabled, signed out, its token revoked)."""


class AccountsMiddleware:
    """Authenticates every request by personal token or session (see the module's description)."""

    def __init__(self, app: ASGIApp, accounts: Callable[[], AccountService]) -> None:
        self.app = app
        self.accounts = accounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = route_path(scope)
        if needs_no_token(scope, path) or (path == SESSION_PATH and scope["method"] == "POST"):
            await self.app(scope, receive, send)
            return
        found = await self._principal(scope)
        if isinstance(found, Principal):
            unsafe = scope["method"] not in SAFE_METHODS
            if (
                found.via == "session"
                and unsafe
                and not csrf_matches(found.csrf_token, header(scope, CSRF_HEADER))
            ):
                await refuse(
                    send,
                    403,
                    "CsrfRefused",
                    "a request that changes something must send the session's X-CSRF-Token header",
                )
                return
            checked = self._checking_send(scope, found, send)
            try:
                await self._serve_recorded(
                    {**scope, PRINCIPAL_SCOPE_KEY: found}, path, found, receive, checked
                )
            except* AccountGone:  # (a task group of the stream may wrap it)
                log.info("an answer to %s ended: its account no longer signs in", found.user.name)
            return
        if path in (SESSION_PATH, HEALTH_PATH) and scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)  # not signed in: says so / the health check, no names
            return
        await refuse(
            send,
            401,
            "Unauthorized",
            "sign in (POST /api/session with your name and password), or send a personal token as "
            "`Authorization: Bearer TOKEN`",
            [(b"www-authenticate", b"Bearer")],
        )

    def _checking_send(self, scope: Scope, principal: Principal, send: Send) -> Send:
        """``send`` that checks the credential again, at most every RECHECK_S, while a long answer (an event
        stream, its pings included) goes on; it ends the answer once the account is disabled, the session
        ended or the token revoked (AccountGone), so that an open stream stops too."""
        last = time.monotonic()

        async def send_checked(message: Message) -> None:
            nonlocal last
            streaming = message["type"] == "http.response.body" and message.get("more_body")
            if streaming and time.monotonic() - last > RECHECK_S:
                last = time.monotonic()
                again = await self._principal(scope)
                if not isinstance(again, Principal) or again.user.id != principal.user.id:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    raise AccountGone
            await send(message)

        return send_checked

    async def _serve_recorded(
        self, scope: Scope, path: str, principal: Principal, receive: Receive, send: Send
    ) -> None:
        """Serve the request; record it in the audit log when it is an audited action that succeeded."""
        action = audited(scope["method"], path, header(scope, b"range"))
        if action is None:
            await self.app(scope, receive, send)
            return
        recorded, user = action, principal.user.name
        client = scope.get("client")
        address = str(client[0]) if client else ""

        async def send_recorded(message: Message) -> None:
            # recorded before the answer starts, so a client that got it finds the entry
            if message["type"] == "http.response.start" and int(message["status"]) < 400:
                await run_in_threadpool(self.accounts().record, recorded[0], user, recorded[1], address)
            await send(message)

        await self.app(scope, receive, send_recorded)

    async def _principal(self, scope: Scope) -> Principal | Literal["none", "wrong"]:
        """The request's account; "none" when it sends no credential, "wrong" when it sends one that is
        not valid (a wrong, revoked or foreign token, an ended session, a disabled account)."""
        accounts = self.accounts()
        authorization = header(scope, b"authorization")
        if authorization is not None:
            scheme, _, secret = authorization.partition(" ")
            if scheme.lower() != "bearer" or not secret.strip():
                return "wrong"
            user = await run_in_threadpool(accounts.user_of_token, secret.strip())
            return "wrong" if user is None else Principal(user, "token")
        session_id = cookie_value(scope, SESSION_COOKIE)
        if not session_id:
            return "none"
        signed_in = await run_in_threadpool(accounts.session, session_id)
        if signed_in is None:
            return "wrong"
        return Principal(signed_in.user, "session", session_id, signed_in.csrf_token)
