"""The worker of the weak-model measurement (benchmarks/weak_model.py): research or report runs over the
sample collection against a running fake Ollama, in a process of their own, so the same runs can be made
with today's code and with the code before (``PYTHONPATH`` names which ``rabbithole`` is imported).

    python -m benchmarks.weak_worker --worker research|report --out FILE --data-dir DIR
        --fake URL --profiles normal,weak --questions FILE --expect-code DIR

It uses only what the code before has too (``Services``, ``run_research``, ``ResearchRunner``) and the fake's
HTTP controls, and writes, per profile and question: the result as the code's own model dumps it (or the
error that ended the run), the seconds, and the fake's record of the run's chat requests (the fake is reset
and set to the profile before each run), so the parent scores every run with the same (today's) measures,
whichever code made it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks.common import SAMPLE_COLLECTION, bench_settings

CHAT_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions")
#: what the parent needs of a recorded request (its body, the prompt, stays behind)
RECORD_FIELDS = ("path", "status", "prompt_tokens", "num_ctx", "response_text", "weak", "schema_name")


class FakeControl:
    """The fake Ollama's HTTP controls this worker needs (any version of the client would do)."""

    def __init__(self, url: str) -> None:
        import httpx

        self._http = httpx.Client(base_url=url.rstrip("/"), timeout=60.0)

    def start_run(self, profile: str) -> None:
        """No recorded requests, scripts or faults; the model answers as ``profile``."""
        self._http.post("/_fake/reset", json={}).raise_for_status()
        self._http.post("/_fake/profile", json={"profile": profile}).raise_for_status()

    def chat_records(self) -> list[dict[str, Any]]:
        response = self._http.get("/_fake/requests")
        response.raise_for_status()
        return [{k: r.get(k) for k in RECORD_FIELDS} for r in response.json() if r.get("path") in CHAT_PATHS]

    def close(self) -> None:
        self._http.close()


def runner_module() -> Any:
    """The runner of the code imported: ``rabbithole.runs.runner`` today, ``rabbithole.research.runner`` in
    the code before issue 25 moved it (the measurement runs both)."""
    import importlib

    try:
        return importlib.import_module("rabbithole.runs.runner")
    except ModuleNotFoundError:
        return importlib.import_module("rabbithole.research.runner")


async def research_run(services: Any, question: str) -> Any:
    run_research = runner_module().run_research
    return await run_research(services, question, collections=[SAMPLE_COLLECTION], mode="quick")


async def report_run(services: Any, topic: str) -> Any:
    """A report on ``topic`` with the outline the model proposes, approved as proposed."""
    runner = runner_module().ResearchRunner(services)
    record = runner.create(topic, [SAMPLE_COLLECTION], "report", {})
    view = await runner.advance(record.id)
    if view.result is None:
        view = await runner.advance(record.id, {"action": "approve"})
    if view.result is None:
        raise RuntimeError(f"the report run waits for input after the approval ({view.record.phase})")
    return view.result


async def run_all(
    kind: str, data_dir: Path, url: str, profiles: list[str], questions: list[dict[str, str]]
) -> list[dict[str, Any]]:
    from rabbithole.services import Services

    settings = bench_settings(data_dir, llm={"base_url": url, "request_timeout_s": 60.0})
    fake = FakeControl(url)
    runs: list[dict[str, Any]] = []
    try:
        async with Services(settings) as services:
            services.searcher.run("warm-up", SAMPLE_COLLECTION, k=1)  # the embedder loads outside the runs
            for profile, q in ((p, q) for p in profiles for q in questions):
                fake.start_run(profile)
                started = time.perf_counter()
                result: dict[str, Any] | None = None
                error = None
                try:
                    made = await (research_run if kind == "research" else report_run)(services, q["question"])
                    result = made.model_dump(mode="json")
                except Exception as exc:  # a failed run is a finding of the measurement, not its end
                    error = f"{type(exc).__name__}: {exc}"
                runs.append(
                    {
                        "id": q["id"],
                        "profile": profile,
                        "seconds": time.perf_counter() - started,
                        "result": result,
                        "error": error,
                        "requests": fake.chat_records(),
                    }
                )
    finally:
        fake.close()
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", choices=("research", "report"), required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--fake", required=True, help="the fake Ollama's address")
    parser.add_argument("--profiles", default="normal,weak", help="the fake's profiles, in turn")
    parser.add_argument("--questions", type=Path, required=True, help='JSON: [{"id": ..., "question": ...}]')
    parser.add_argument("--expect-code", type=Path, required=True, help="the backend/ folder to import from")
    args = parser.parse_args(argv)

    import rabbithole

    imported = Path(rabbithole.__file__).resolve()
    if not imported.is_relative_to(args.expect_code.resolve()):
        raise SystemExit(f"imported rabbithole from {imported}, expected it under {args.expect_code}")
    questions = json.loads(args.questions.read_text(encoding="utf-8"))
    runs = asyncio.run(run_all(args.worker, args.data_dir, args.fake, args.profiles.split(","), questions))
    args.out.write_text(json.dumps({"code": str(imported.parent), "runs": runs}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
