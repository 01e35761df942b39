"""The browser's sign-in, in both modes that have one.

* server.auth = token: POST /api/session trades the server's token for an HttpOnly session cookie (an
  HMAC of the token), so the web app (and what cannot send headers: EventSource, pdf.js) works; DELETE signs
  out; GET says whether a token is needed and how this request gave it. The token middleware
  (api/security.py) checks the cookie.
* server.auth = accounts: POST /api/session with a name and a password starts a session (a new random id
  at every sign-in, so an id planted before it is never adopted; an id given with the request is ended),
  rate-limited per account and per address (429), one answer for every refusal (401); DELETE ends it; GET
  says who is signed in and gives the session's CSRF token, which the web app sends as `X-CSRF-Token` with
  every request that changes something (api/accounts_auth.py checks it).

POST and DELETE pass the `Origin:` check of the cross-origin guard (api/origin_guard.py) first."""

from __future__ import annotations

import hmac
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from rabbithole.accounts.errors import TooManySignInsError
from rabbithole.accounts.tables import utcnow
from rabbithole.api.access import PRINCIPAL_SCOPE_KEY, Principal
from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import error_response, responses
from rabbithole.api.security import AUTH_SCOPE_KEY, SESSION_COOKIE, cookie_value, session_cookie_value
from rabbithole.core.config.network import AuthMode

router = APIRouter(tags=["session"])

#: The longest password a sign-in request may carry at all (the configured limit is checked after).
MAX_PASSWORD_FIELD = 4096


class SessionRequest(BaseModel):
    token: str | None = Field(
        None, min_length=1, max_length=4096, description="server.auth token: the server's token."
    )
    name: str | None = Field(
        None, min_length=1, max_length=200, description="server.auth accounts: the name."
    )
    password: str | None = Field(
        None, min_length=1, max_length=MAX_PASSWORD_FIELD, description="server.auth accounts: the password."
    )


class SessionState(BaseModel):
    token_required: bool = Field(description="Whether the server wants a credential (any mode but none).")
    via: Literal["bearer", "cookie", "none"] = Field(
        description="How this request gave it: the Authorization header, the session cookie, or none."
    )
    auth: AuthMode = Field("none", description="server.auth: none, token or accounts.")
    user: str | None = Field(None, description="Accounts mode: the signed-in account's name.")
    is_admin: bool = Field(False, description="Accounts mode: whether that account is an administrator.")
    csrf_token: str | None = Field(
        None,
        description="Accounts mode, signed in with the cookie: send it as `X-CSRF-Token` with every request "
        "that changes something.",
    )


def _cookie_path(request: Request) -> str:
    """The app's root path (a reverse proxy's sub-path, e.g. "/research"), so the cookie goes to this
    app only."""
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/") or "/"


def _set_cookie(request: Request, response: Response, value: str, max_age: int | None) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=max_age,
        path=_cookie_path(request),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


@router.get("/session", response_model=SessionState, responses=responses())
async def get_session(request: Request, services: ServicesDep) -> SessionState:
    """Whether the server wants a credential and how this request gave it (token mode: a 401 here means
    sign in; accounts mode: `user` null means sign in)."""
    mode = services.settings.server.auth_mode
    if mode == "accounts":
        principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
        if not isinstance(principal, Principal):
            return SessionState(token_required=True, via="none", auth=mode)
        return SessionState(
            token_required=True,
            via="cookie" if principal.via == "session" else "bearer",
            auth=mode,
            user=principal.user.name,
            is_admin=principal.user.is_admin,
            csrf_token=principal.csrf_token or None,
        )
    via = request.scope.get(AUTH_SCOPE_KEY)
    return SessionState(
        token_required=mode == "token", via=via if via in ("bearer", "cookie") else "none", auth=mode
    )


@router.post(
    "/session",
    status_code=204,
    response_class=Response,
    responses={**responses(403, 429), 204: {"description": "Signed in: the session cookie is set."}},
)
async def create_session(body: SessionRequest, request: Request, services: ServicesDep) -> Response:
    """Signs in and sets the session cookie (HttpOnly, SameSite=Strict, Secure over https, for the app's
    root path). Token mode: `token`; the cookie lasts the browser session. Accounts mode: `name` and
    `password`; the session ends after accounts.session_hours. No credential needed: 204 and no cookie."""
    mode = services.settings.server.auth_mode
    if mode == "accounts":
        return await _sign_in(body, request, services)
    token = services.settings.server.token
    if mode != "token" or not token:
        return Response(status_code=204)
    if body.token is None or not hmac.compare_digest(body.token.encode(), token.encode()):
        return error_response(401, "Unauthorized", "wrong token")
    response = Response(status_code=204)
    _set_cookie(request, response, session_cookie_value(token), max_age=None)
    return response


async def _sign_in(body: SessionRequest, request: Request, services: ServicesDep) -> Response:
    if body.name is None or body.password is None:
        return error_response(422, "ValidationError", "sign in with a name and a password")
    accounts = services.accounts
    planted = cookie_value(request.scope, SESSION_COOKIE)
    if planted:  # a session id the browser had before: never continued, ended
        await run_in_threadpool(accounts.sessions.end, planted)
    try:
        session_id, signed_in = await run_in_threadpool(
            accounts.sign_in, body.name, body.password, _address(request)
        )
    except TooManySignInsError as exc:
        return error_response(429, "TooManySignIns", str(exc), {"Retry-After": str(exc.retry_after_s)})
    response = Response(status_code=204)
    lifetime = int((signed_in.expires_at - utcnow()).total_seconds())
    _set_cookie(request, response, session_id, max_age=max(lifetime, 1))
    return response


@router.delete(
    "/session",
    status_code=204,
    response_class=Response,
    responses={**responses(403), 204: {"description": "Signed out: the session cookie is cleared."}},
)
async def delete_session(request: Request, services: ServicesDep) -> Response:
    """Signs out: the session ends (accounts mode) and the cookie is cleared."""
    principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
    if isinstance(principal, Principal) and principal.session_id:
        await run_in_threadpool(
            services.accounts.sign_out, principal.session_id, principal.user.name, _address(request)
        )
    response = Response(status_code=204)
    _set_cookie(request, response, "", max_age=0)
    return response
