"""``python -m rabbithole.devtools.fake_ollama --port 11435 [--latency-ms 50] [--host 127.0.0.1]``."""

from __future__ import annotations

import argparse
import sys

import uvicorn

from rabbithole.devtools.fake_ollama.server import create_app
from rabbithole.devtools.fake_ollama.state import DEFAULT_MODELS, FakeState


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rabbithole.devtools.fake_ollama",
        description="A fake Ollama server with deterministic answers (no model needed).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--latency-ms", type=int, default=0, help="delay before every model answer")
    parser.add_argument(
        "--models",
        default=",".join(DEFAULT_MODELS),
        help="comma-separated models the server has (default: %(default)s)",
    )
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    app = create_app(FakeState(models, args.latency_ms))
    app.state.handlers.warm_up()
    print(f"fake ollama listening on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
