"""The fake Ollama HTTP API (a Starlette app): the endpoints Rabbithole's clients use, answered
deterministically, plus an OpenAI-compatible ``/v1`` subset and the ``/_fake`` control endpoints.

Streaming answers are NDJSON exactly as Ollama sends them (one ``{"message": {...}, "done": false}``
object per line, a final line with ``done: true``, ``done_reason`` and the token/duration counts);
``/v1/chat/completions`` streams server-sent events like OpenAI's API.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from rabbithole.devtools.fake_ollama.control import control_routes
from rabbithole.devtools.fake_ollama.embeddings import DEFAULT_DIM, embed_text
from rabbithole.devtools.fake_ollama.faults import AppliedFaults
from rabbithole.devtools.fake_ollama.generation import Output, TokenCounting, produce, split_pieces
from rabbithole.devtools.fake_ollama.responses import ChunkedResponse, error, now
from rabbithole.devtools.fake_ollama.state import EMBEDDING_MODELS, FakeState, RecordedRequest

OLLAMA_VERSION = "0.12.6"


def _family(model: str) -> str:
    base = model.split(":", 1)[0]
    return "".join(c for c in base if c.isalpha()) or "llama"


def _details(model: str) -> dict[str, Any]:
    family = _family(model)
    size = model.split(":", 1)[1] if ":" in model else "latest"
    return {
        "parent_model": "",
        "format": "gguf",
        "family": family,
        "families": [family],
        "parameter_size": size.upper() if size[:1].isdigit() else "7B",
        "quantization_level": "Q4_K_M",
    }


class FakeOllamaApp:
    """Request handlers over one ``FakeState``."""

    def __init__(self, state: FakeState) -> None:
        self.state = state
        self.counting = TokenCounting()

    def warm_up(self) -> None:
        """Load the tokenizer in the background so that the first answer is not slow."""
        threading.Thread(target=self.counting.counter.load, daemon=True, name="fake-ollama-warm-up").start()

    # -- shared request handling -----------------------------------------------------------

    async def _begin(self, request: Request) -> tuple[RecordedRequest, AppliedFaults] | Response:
        openai = request.url.path.startswith("/v1/")
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return error(400, f"invalid JSON body: {exc}", openai)
        if not isinstance(body, dict):
            return error(400, "the request body must be a JSON object", openai)
        model = body.get("model")
        record = self.state.record(
            RecordedRequest(request.method, request.url.path, body, str(model) if model else None)
        )
        faults = self.state.draw_faults(record.path, record.model, record.schema_name)
        record.faults = list(faults.kinds)
        delay = self.state.latency_ms / 1000 + faults.latency_s
        if delay:
            await asyncio.sleep(delay)
        if not model:
            record.status = 400
            return error(400, "model is required", openai)
        if not self.state.has_model(record.model):
            record.status = 404
            name = record.model
            text = (
                f"model '{name}' not found"
                if not openai
                else f'model "{name}" not found, try pulling it first'
            )
            return error(404, text, openai)
        if faults.error is not None:
            record.status = faults.error.status
            return error(faults.error.status, faults.error.message, openai)
        return record, faults

    def _stats(self, output: Output) -> dict[str, Any]:
        return {
            "total_duration": 1_000_000 * (5 + output.eval_count),
            "load_duration": 1_000_000,
            "prompt_eval_count": output.prompt_eval_count,
            "prompt_eval_duration": 1_000 * output.prompt_eval_count,
            "eval_count": output.eval_count,
            "eval_duration": 1_000_000 * output.eval_count,
        }

    # -- Ollama API ------------------------------------------------------------------------

    async def root(self, request: Request) -> Response:
        return PlainTextResponse("Ollama is running")

    async def version(self, request: Request) -> Response:
        return JSONResponse({"version": OLLAMA_VERSION})

    async def tags(self, request: Request) -> Response:
        models = []
        for name in self.state.model_list():
            digest = hashlib.sha256(name.encode()).hexdigest()
            models.append(
                {
                    "name": name,
                    "model": name,
                    "modified_at": "2025-01-01T00:00:00Z",
                    "size": 4_000_000_000,
                    "digest": digest,
                    "details": _details(name),
                }
            )
        return JSONResponse({"models": models})

    async def ps(self, request: Request) -> Response:
        return JSONResponse({"models": []})

    async def show(self, request: Request) -> Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return error(400, "invalid JSON body")
        name = str(body.get("model") or body.get("name") or "")
        if not self.state.has_model(name):
            return error(404, f"model '{name}' not found")
        family = _family(name)
        embedding = any(name.startswith(e) for e in EMBEDDING_MODELS)
        return JSONResponse(
            {
                "license": "fake",
                "modelfile": f"FROM {name}\n",
                "parameters": "temperature 0.6",
                "template": "{{ .Prompt }}",
                "details": _details(name),
                "model_info": {
                    "general.architecture": family,
                    f"{family}.context_length": 40960,
                    f"{family}.embedding_length": DEFAULT_DIM,
                },
                "capabilities": ["embedding"] if embedding else ["completion", "tools", "thinking"],
                "modified_at": "2025-01-01T00:00:00Z",
            }
        )

    async def chat(self, request: Request) -> Response:
        return await self._complete(request, chat=True)

    async def generate(self, request: Request) -> Response:
        return await self._complete(request, chat=False)

    async def _complete(self, request: Request, *, chat: bool) -> Response:
        begun = await self._begin(request)
        if isinstance(begun, Response):
            return begun
        record, faults = begun
        body = record.body
        if not chat and not body.get("prompt") and not body.get("system"):
            # Ollama loads the model and answers done_reason "load" for an empty generate
            return JSONResponse(
                {
                    "model": record.model,
                    "created_at": now(),
                    "response": "",
                    "done": True,
                    "done_reason": "load",
                }
            )
        output = produce(self.state, record, faults, self.counting)
        model = record.model

        def piece(content: str, thinking: str | None = None) -> dict[str, Any]:
            if chat:
                message: dict[str, Any] = {"role": "assistant", "content": content}
                if thinking:
                    message["thinking"] = thinking
                return {"model": model, "created_at": now(), "message": message, "done": False}
            data: dict[str, Any] = {"model": model, "created_at": now(), "response": content, "done": False}
            if thinking:
                data["thinking"] = thinking
            return data

        final = piece("")
        final.update({"done": True, "done_reason": output.done_reason, **self._stats(output)})
        if not chat:
            final["context"] = list(range(1, min(output.prompt_eval_count, 32) + 1))
        if not body.get("stream", True):
            whole = piece(output.content, output.thinking)
            whole.update({k: v for k, v in final.items() if k not in ("message", "response")})
            data = json.dumps(whole, ensure_ascii=False).encode()
            if faults.drop_after is not None:
                return ChunkedResponse([data[: len(data) // 2]], media_type="application/json", drop_after=1)
            if faults.stream_error is not None:
                record.status = faults.stream_error.status
                return error(faults.stream_error.status, faults.stream_error.message)
            return Response(data, media_type="application/json; charset=utf-8")
        lines: list[dict[str, Any]] = []
        if output.thinking:
            lines.append(piece("", output.thinking))
        lines += [piece(p) for p in split_pieces(output.content)]
        if faults.stream_error is not None:
            lines = [*lines[: faults.stream_error.after_chunks], {"error": faults.stream_error.message}]
        else:
            lines.append(final)
        chunks = [json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines]
        return ChunkedResponse(
            chunks,
            media_type="application/x-ndjson",
            chunk_delay_s=faults.chunk_delay_s,
            drop_after=faults.drop_after,
        )

    async def embed(self, request: Request) -> Response:
        begun = await self._begin(request)
        if isinstance(begun, Response):
            return begun
        record, faults = begun
        texts, vectors = _embed_inputs(record.body)
        record.prompt_tokens = sum(len(t.split()) for t in texts)
        data = {
            "model": record.model,
            "embeddings": vectors,
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": record.prompt_tokens,
        }
        return self._maybe_dropped(data, faults)

    async def embeddings_legacy(self, request: Request) -> Response:
        begun = await self._begin(request)
        if isinstance(begun, Response):
            return begun
        record, faults = begun
        return self._maybe_dropped({"embedding": embed_text(str(record.body.get("prompt", "")))}, faults)

    @staticmethod
    def _maybe_dropped(data: Mapping[str, Any], faults: AppliedFaults) -> Response:
        encoded = json.dumps(data).encode()
        if faults.drop_after is not None:
            return ChunkedResponse(
                [encoded[: len(encoded) // 2]], media_type="application/json", drop_after=1
            )
        return Response(encoded, media_type="application/json; charset=utf-8")

    # -- OpenAI-compatible subset ----------------------------------------------------------

    async def openai_models(self, request: Request) -> Response:
        data = [
            {"id": m, "object": "model", "created": 1735689600, "owned_by": "library"}
            for m in self.state.model_list()
        ]
        return JSONResponse({"object": "list", "data": data})

    async def openai_chat(self, request: Request) -> Response:
        begun = await self._begin(request)
        if isinstance(begun, Response):
            return begun
        record, faults = begun
        output = produce(self.state, record, faults, self.counting)
        ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        created = int(time.time())
        finish = "length" if output.done_reason == "length" else "stop"
        usage = {
            "prompt_tokens": output.prompt_eval_count,
            "completion_tokens": output.eval_count,
            "total_tokens": output.prompt_eval_count + output.eval_count,
        }
        base = {"id": ident, "created": created, "model": record.model, "system_fingerprint": "fp_ollama"}
        if not record.body.get("stream"):
            message = {"role": "assistant", "content": output.content}
            choice = {"index": 0, "message": message, "finish_reason": finish}
            data = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            return self._maybe_dropped(data, faults)
        events: list[dict[str, Any]] = []
        for i, text in enumerate(split_pieces(output.content)):
            delta = {"role": "assistant", "content": text} if i == 0 else {"content": text}
            events.append(
                {
                    **base,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
            )
        events.append(
            {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            }
        )
        chunks = [f"data: {json.dumps(e, ensure_ascii=False)}\n\n".encode() for e in events] + [
            b"data: [DONE]\n\n"
        ]
        return ChunkedResponse(
            chunks,
            media_type="text/event-stream",
            chunk_delay_s=faults.chunk_delay_s,
            drop_after=faults.drop_after,
        )

    async def openai_embeddings(self, request: Request) -> Response:
        begun = await self._begin(request)
        if isinstance(begun, Response):
            return begun
        record, faults = begun
        texts, vectors = _embed_inputs(record.body)
        data = [{"object": "embedding", "embedding": v, "index": i} for i, v in enumerate(vectors)]
        tokens = sum(len(t.split()) for t in texts)
        body = {
            "object": "list",
            "data": data,
            "model": record.model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return self._maybe_dropped(body, faults)


def create_app(state: FakeState | None = None) -> Starlette:
    """The ASGI app of a fake Ollama server (``app.state.fake`` is its ``FakeState``)."""
    fake = FakeOllamaApp(state or FakeState())
    routes = [
        Route("/", fake.root, methods=["GET", "HEAD"]),
        Route("/api/version", fake.version, methods=["GET"]),
        Route("/api/tags", fake.tags, methods=["GET"]),
        Route("/api/ps", fake.ps, methods=["GET"]),
        Route("/api/show", fake.show, methods=["POST"]),
        Route("/api/chat", fake.chat, methods=["POST"]),
        Route("/api/generate", fake.generate, methods=["POST"]),
        Route("/api/embed", fake.embed, methods=["POST"]),
        Route("/api/embeddings", fake.embeddings_legacy, methods=["POST"]),
        Route("/v1/models", fake.openai_models, methods=["GET"]),
        Route("/v1/chat/completions", fake.openai_chat, methods=["POST"]),
        Route("/v1/embeddings", fake.openai_embeddings, methods=["POST"]),
    ]
    app = Starlette(routes=[*routes, *control_routes(fake.state)])
    app.state.fake = fake.state
    app.state.handlers = fake
    return app


def _embed_inputs(body: dict[str, Any]) -> tuple[list[str], list[list[float]]]:
    """The texts of an embedding request (Ollama's and OpenAI's share the shape) and their vectors."""
    raw = body.get("input", "")
    texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
    dim = int(body.get("dimensions") or DEFAULT_DIM)
    return texts, [embed_text(t, dim) for t in texts]
