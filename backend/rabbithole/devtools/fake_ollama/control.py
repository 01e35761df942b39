"""The ``/_fake`` control endpoints: script answers, inject faults, set models, latency and the weak-model
profile, reset, and read the recorded requests of a fake server running in another process."""

from __future__ import annotations

import functools
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rabbithole.devtools.fake_ollama.faults import Fault
from rabbithole.devtools.fake_ollama.responses import error
from rabbithole.devtools.fake_ollama.state import FakeState, Script
from rabbithole.devtools.fake_ollama.weak import profile_knobs


async def control_script(state: FakeState, request: Request) -> Response:
    body = await request.json()
    items = body if isinstance(body, list) else [body]
    allowed = {"response", "schema", "prompt_contains", "model", "path", "times"}
    for item in items:
        if not isinstance(item, dict) or "response" not in item or set(item) - allowed:
            return error(400, f"a script is an object with 'response' and optionally {sorted(allowed)}")
    for item in items:
        state.add_script(Script(**item))
    return JSONResponse({"scripts": len(state.scripts)})


async def control_faults(state: FakeState, request: Request) -> Response:
    body = await request.json()
    items = body if isinstance(body, list) else [body]
    try:
        faults = [Fault.from_dict(item) for item in items]
    except (TypeError, ValueError) as exc:
        return error(400, str(exc))
    for fault in faults:
        state.add_fault(fault)
    return JSONResponse({"faults": [f.to_dict() for f in state.faults]})


async def control_models(state: FakeState, request: Request) -> Response:
    body = await request.json()
    models = body.get("models") if isinstance(body, dict) else body
    if not isinstance(models, list):
        return error(400, "expected {'models': [...]}")
    state.set_models(str(m) for m in models)
    return JSONResponse({"models": state.model_list()})


async def control_latency(state: FakeState, request: Request) -> Response:
    body = await request.json()
    state.latency_ms = int(body.get("latency_ms", 0))
    return JSONResponse({"latency_ms": state.latency_ms})


async def control_profile(state: FakeState, request: Request) -> Response:
    body = await request.json()
    if not isinstance(body, dict) or set(body) - {"profile", "knobs"}:
        return error(400, "expected {'profile': 'normal' | 'weak', 'knobs': {...}} (both optional)")
    knobs = body.get("knobs") or {}
    if not isinstance(knobs, dict):
        return error(400, "'knobs' is an object of knob names and values")
    try:
        chosen = profile_knobs(str(body.get("profile", "normal")), knobs)
    except (TypeError, ValueError) as exc:
        return error(400, str(exc))
    return JSONResponse(state.set_knobs(chosen).to_dict())


async def control_reset(state: FakeState, request: Request) -> Response:
    state.reset()
    return JSONResponse({"reset": True})


async def control_requests(state: FakeState, request: Request) -> Response:
    return JSONResponse([r.to_dict() for r in state.recorded()])


async def control_state(state: FakeState, request: Request) -> Response:
    return JSONResponse(
        {
            "models": state.model_list(),
            "latency_ms": state.latency_ms,
            "scripts": [s.to_dict() for s in state.scripts],
            "faults": [f.to_dict() for f in state.faults],
            "weak": state.knobs.to_dict(),
            "requests": len(state.requests),
        }
    )


def control_routes(state: FakeState) -> list[Route]:
    def bind(handler: Any) -> Any:
        return functools.partial(handler, state)

    return [
        Route("/_fake/script", bind(control_script), methods=["POST"]),
        Route("/_fake/faults", bind(control_faults), methods=["POST"]),
        Route("/_fake/models", bind(control_models), methods=["POST"]),
        Route("/_fake/latency", bind(control_latency), methods=["POST"]),
        Route("/_fake/profile", bind(control_profile), methods=["POST"]),
        Route("/_fake/reset", bind(control_reset), methods=["POST"]),
        Route("/_fake/requests", bind(control_requests), methods=["GET"]),
        Route("/_fake/state", bind(control_state), methods=["GET"]),
    ]
