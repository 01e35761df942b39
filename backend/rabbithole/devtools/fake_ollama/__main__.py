"""``python -m rabbithole.devtools.fake_ollama --port 11435 [--latency-ms 50] [--host 127.0.0.1]
[--profile weak] [--knob char_cap=800 ...]``.

``--port 0`` takes a free port: the first line on stderr names the address the server listens on
("fake ollama listening on http://127.0.0.1:PORT"), bound before it is printed, so a caller that reads it
never races another process for the port."""

from __future__ import annotations

import argparse
import socket
import sys

import uvicorn

from rabbithole.devtools.fake_ollama.server import create_app
from rabbithole.devtools.fake_ollama.state import DEFAULT_MODELS, FakeState
from rabbithole.devtools.fake_ollama.weak import KNOB_NAMES, PROFILE_NAMES, WeakKnobs, profile_knobs


def _knobs(profile: str, pairs: list[str]) -> WeakKnobs:
    """The profile's knobs with ``NAME=VALUE`` overrides (numbers)."""
    overrides: dict[str, float | int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--knob {pair!r}: expected NAME=VALUE")
        overrides[name.strip()] = int(value) if name.strip() == "char_cap" else float(value)
    return profile_knobs(profile, overrides)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rabbithole.devtools.fake_ollama",
        description="A fake Ollama server with deterministic answers (no model needed).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=11434, help="0: a free port (printed on stderr)")
    parser.add_argument("--latency-ms", type=int, default=0, help="delay before every model answer")
    parser.add_argument(
        "--models",
        default=",".join(DEFAULT_MODELS),
        help="comma-separated models the server has (default: %(default)s)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default="normal",
        help="how the model answers: well-formed (normal) or as a 0.5B local model did (weak); "
        "POST /_fake/reset returns to it",
    )
    parser.add_argument(
        "--knob",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"override one knob of the profile (repeatable): {', '.join(KNOB_NAMES)}",
    )
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    try:
        knobs = _knobs(args.profile, args.knob)
    except ValueError as exc:
        parser.error(str(exc))
    app = create_app(FakeState(models, args.latency_ms, knobs))
    app.state.handlers.warm_up()
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 69
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"fake ollama listening on http://{host}:{port}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
