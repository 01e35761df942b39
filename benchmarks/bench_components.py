"""Speed of small components, checked against goals: wall-clock checks live here, not in the tests.

    python -m benchmarks.bench_components [--quick]

- BM25 tokenizer: seconds per ~1000-character chunk (goal: under 2 ms, so 100k chunks tokenize in well
  under 3 minutes).
- Token counter: a second TokenCounter reuses the loaded tokenizer (goal: its load under 50 ms).
- LLM client against a server that is down: three calls (invoke, stream, structured) fail fast
  (goal: all three within 5 s, no retry storm).
- LLM client against the fake Ollama answering slower than the request timeout (0.3 s): the call gives up
  near the timeout (goal: within 1.4 s), and the fake's latency setting delays an answer (at least 120 ms).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import time

from benchmarks.common import Goal, base_parser, print_goals, print_table

SENTENCE = (
    "(1) Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20 Millisievert "
    "im Kalenderjahr. Die zuständige Behörde kann nach § 79 Absatz 1 Satz 2 Nummer 1 im Einzelfall "
)


def tokenizer_seconds_per_chunk(chunks: int) -> float:
    from rabbithole.retrieval.tokenizer import tokenize_documents

    text = SENTENCE * 6
    tokenize_documents([text] * 50)  # warm the stem cache
    started = time.perf_counter()
    tokenize_documents([text] * chunks)
    return (time.perf_counter() - started) / chunks


def second_token_counter_load_seconds() -> float:
    from rabbithole.llm.tokens import TokenCounter

    TokenCounter().load()
    other = TokenCounter()
    other.count(SENTENCE)
    return other.load_seconds


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def llm_down_seconds() -> float:
    from pydantic import BaseModel

    from rabbithole.core.config import LLMSettings
    from rabbithole.core.errors import LLMUnavailableError
    from rabbithole.llm import LLMClient

    class Plan(BaseModel):
        title: str

    url = f"http://127.0.0.1:{_free_port()}"
    client = LLMClient(LLMSettings(base_url=url, fallback_model="qwen3:4b", request_timeout_s=5))
    started = time.perf_counter()
    for call in (
        lambda: client.invoke("hi"),
        lambda: list(client.stream("hi")),
        lambda: client.structured(Plan, "hi"),
    ):
        try:
            call()
        except LLMUnavailableError:
            continue
        raise AssertionError("a call to a server that is down succeeded")
    return time.perf_counter() - started


def llm_timeout_and_latency_seconds() -> tuple[float, float]:
    from rabbithole.core.errors import LLMUnavailableError
    from rabbithole.devtools.fake_ollama import FakeOllama
    from rabbithole.llm import LLMClient

    with FakeOllama() as fake:
        logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)  # the answer the client abandons
        client = LLMClient(fake.settings(request_timeout_s=0.3))
        fake.fault("slow", delay_ms=1000)
        started = time.perf_counter()
        with contextlib.suppress(LLMUnavailableError):
            client.invoke("Was regelt § 7 AtG?")
        timeout = time.perf_counter() - started
        time.sleep(1.2)  # let the fake finish the abandoned answer before it is reset
        fake.reset()
        fake.set_latency(120)
        started = time.perf_counter()
        LLMClient(fake.settings()).invoke("hi")
        latency = time.perf_counter() - started
    return timeout, latency


def main(argv: list[str] | None = None) -> int:
    args, _ = base_parser(__doc__).parse_known_args(argv)
    logging.getLogger("rabbithole.llm").setLevel(logging.ERROR)  # the expected failures are not news
    per_chunk = tokenizer_seconds_per_chunk(500 if args.quick else 2000)
    reload = second_token_counter_load_seconds()
    down = llm_down_seconds()
    timeout, latency = llm_timeout_and_latency_seconds()
    print_table(
        ["check", "measured", "goal"],
        [
            ["BM25 tokenizer, ms per 1000-character chunk", per_chunk * 1000, "< 2"],
            ["second TokenCounter load, ms", reload * 1000, "< 50"],
            ["3 calls to an LLM server that is down, s", down, "< 5"],
            ["call slower than a 0.3 s timeout gives up after, s", timeout, "< 1.4"],
            ["fake Ollama with 120 ms latency answers after, s", latency, ">= 0.12"],
        ],
        title="components",
    )
    goals = [
        Goal("tokenizer speed", per_chunk < 0.002, f"{per_chunk * 1000:.2f} ms per chunk", True),
        Goal("token counter shared", reload < 0.05, f"{reload * 1000:.1f} ms"),
        Goal("LLM down fails fast", down < 5, f"{down:.2f} s for 3 calls"),
        Goal("LLM timeout respected", timeout < 1.4, f"{timeout:.2f} s with a 0.3 s timeout"),
        Goal("fake Ollama latency applied", latency >= 0.12, f"{latency:.3f} s"),
    ]
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
