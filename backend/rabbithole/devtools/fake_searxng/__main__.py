"""``python -m rabbithole.devtools.fake_searxng --port 8888 [--host 127.0.0.1]``."""

from __future__ import annotations

import argparse
import sys

import uvicorn

from rabbithole.devtools.fake_searxng.server import FakeSearxngState, create_app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rabbithole.devtools.fake_searxng",
        description="A fake SearxNG (JSON search over fixture pages it serves itself).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8888)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    app = create_app(FakeSearxngState())
    print(f"fake searxng listening on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
