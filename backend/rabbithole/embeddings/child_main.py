"""The embedding process (see :mod:`rabbithole.embeddings.child_process`): ``python -m
rabbithole.embeddings.child_main``, started by the parent with the protocol on stdin and stdout."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

from rabbithole.embeddings.child_process import CONCURRENT_CALLS, read_message, write_message


def serve(requests: IO[bytes], answers: IO[bytes]) -> int:
    from rabbithole.embeddings.base import Embedder, TokenCountingEmbedder
    from rabbithole.embeddings.local import create_local_embedder

    send_lock = threading.Lock()

    def send(message: object) -> None:
        with send_lock:
            write_message(answers, message)

    config = read_message(requests)
    if config is None:
        return 0
    try:
        cache_dir = Path(config["cache_dir"]) if config["cache_dir"] is not None else None
        embedder: Embedder = create_local_embedder(config["model"], cache_dir)
        load = getattr(embedder, "load", None)
        if callable(load):
            load()
    except Exception as exc:
        send(("failed", str(exc) or type(exc).__name__))
        return 1
    send(("ready", embedder.model_id, embedder.dim))

    def counting() -> TokenCountingEmbedder:
        if not isinstance(embedder, TokenCountingEmbedder):
            raise TypeError(f"{embedder.model_id} does not count tokens")
        return embedder

    def respond(call_id: int, kind: str, texts: list[str]) -> None:
        try:
            answer: object
            if kind == "query":
                answer = embedder.embed_query(texts[0])
            elif kind == "counted":
                answer = counting().embed_documents_counted(texts)
            elif kind == "count":
                answer = counting().count_tokens(texts)
            else:
                answer = embedder.embed_documents(texts)
        except Exception as exc:
            send((call_id, "error", str(exc) or type(exc).__name__))
        else:
            send((call_id, "ok", answer))

    with ThreadPoolExecutor(CONCURRENT_CALLS, thread_name_prefix="embed-call") as calls:
        while (request := read_message(requests)) is not None:
            calls.submit(respond, *request)
    return 0


def main() -> int:
    answers = sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever a library prints must not enter the protocol's stream
    return serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    code = main()
    # Every answer is written and flushed; the interpreter's teardown (numpy, the model, the worker
    # threads) would take the parent's last 0.2 s of an ingestion for nothing.
    sys.stderr.flush()
    os._exit(code)
