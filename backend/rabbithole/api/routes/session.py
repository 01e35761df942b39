"""The browser's sign-in: POST /api/session trades the server's token for an HttpOnly session cookie, so
the web app (and what cannot send headers: EventSource, pdf.js) works when server.token is set; DELETE
signs out; GET says whether a token is needed and how this request gave it. The token middleware
(api/security.py) checks the cookie and exempts POST/DELETE here from the token, not from the `Origin:`
check of the cross-origin guard (api/origin_guard.py)."""

from __future__ import annotations

import hmac
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import error_response, responses
from rabbithole.api.security import AUTH_SCOPE_KEY, SESSION_COOKIE, session_cookie_value

router = APIRouter(tags=["session"])


class SessionRequest(BaseModel):
    token: str = Field(min_length=1, max_length=4096, description="The server's token (server.token).")


class SessionState(BaseModel):
    token_required: bool = Field(description="Whether the server wants a token (server.token is set).")
    via: Literal["bearer", "cookie", "none"] = Field(
        description="How this request gave the token: the Authorization header, the session cookie, or "
        "none (no token needed)."
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


@router.get("/session", response_model=SessionState, responses=responses())
async def get_session(request: Request, services: ServicesDep) -> SessionState:
    """Whether the server wants a token and how this request gave it (a 401 here: sign in)."""
    via = request.scope.get(AUTH_SCOPE_KEY)
    return SessionState(
        token_required=bool(services.settings.server.token),
        via=via if via in ("bearer", "cookie") else "none",
    )


@router.post(
    "/session",
    status_code=204,
    response_class=Response,
    responses={**responses(403), 204: {"description": "Signed in: the session cookie is set."}},
)
async def create_session(body: SessionRequest, request: Request, services: ServicesDep) -> Response:
    """Checks the token and sets the session cookie (HttpOnly, SameSite=Strict, Secure over https, for the
    app's root path; it lasts the browser session). No token configured: 204 and no cookie."""
    token = services.settings.server.token
    if not token:
        return Response(status_code=204)
    if not hmac.compare_digest(body.token.encode(), token.encode()):
        return error_response(401, "Unauthorized", "wrong token")
    response = Response(status_code=204)
    _set_cookie(request, response, session_cookie_value(token), max_age=None)
    return response


@router.delete(
    "/session",
    status_code=204,
    response_class=Response,
    responses={**responses(403), 204: {"description": "Signed out: the session cookie is cleared."}},
)
async def delete_session(request: Request) -> Response:
    """Clears the session cookie (the next request without the bearer header gets 401)."""
    response = Response(status_code=204)
    _set_cookie(request, response, "", max_age=0)
    return response
