"""What serving the web app's largest file compressed costs the server per request: the build's
precompressed copy (backend/rabbithole/api/spa.py, what the server does) against compressing each answer
(Starlette's GZipMiddleware in front of the same files without their copies). In-process over httpx's ASGI
transport, so the figure is the server's own work per request, not the network's."""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

from rabbithole.api.spa import PRECOMPRESSED, WebAppMiddleware


@dataclass(frozen=True)
class ServingCost:
    """Per request of ``file``: median milliseconds and bytes sent, each way."""

    file: str
    precompressed_ms: float
    precompressed_bytes: int
    per_request_ms: float
    per_request_bytes: int


def largest_script(dist: Path) -> Path:
    scripts = [p for p in (dist / "assets").glob("*.js") if p.is_file()]
    return max(scripts, key=lambda p: p.stat().st_size)


async def _median_ms(app: ASGIApp, path: str, requests: int) -> tuple[float, int]:
    transport = httpx.ASGITransport(app=app)
    headers = {"Accept-Encoding": "gzip"}
    times: list[float] = []
    sent = 0
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for _ in range(requests):
            started = time.perf_counter()
            async with client.stream("GET", path, headers=headers) as answer:
                if answer.headers.get("content-encoding") != "gzip":
                    raise RuntimeError(f"{path} was not sent gzip-encoded: {dict(answer.headers)}")
                sent = sum([len(chunk) async for chunk in answer.aiter_raw()])
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), sent


def serving_cost(dist: Path, requests: int = 30) -> ServingCost:
    """Both ways of sending ``dist``'s largest script gzip-encoded, ``requests`` times each."""
    script = largest_script(dist)
    path = "/" + script.relative_to(dist).as_posix()
    precompressed = WebAppMiddleware(Starlette(), web_dir=dist)
    with tempfile.TemporaryDirectory(prefix="rabbithole-plain-dist-") as scratch:
        plain = Path(scratch) / "dist"
        shutil.copytree(dist, plain, ignore=shutil.ignore_patterns(*(f"*{s}" for _, s in PRECOMPRESSED)))
        compressing = GZipMiddleware(WebAppMiddleware(Starlette(), web_dir=plain), minimum_size=500)
        before_ms, before_bytes = asyncio.run(_median_ms(precompressed, path, requests))
        per_ms, per_bytes = asyncio.run(_median_ms(compressing, path, requests))
    return ServingCost(script.name, before_ms, before_bytes, per_ms, per_bytes)
