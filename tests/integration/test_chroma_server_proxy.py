"""vectors.url with a path prefix and vectors.token: the real Chroma server behind a small reverse proxy (in
this test) that serves it under /chroma and lets only requests with the token through."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import numpy as np
import pytest

from fixtures.chroma_server import ChromaServer
from rabbithole.core.config import StorageSettings, VectorSettings
from rabbithole.core.errors import StoreError, VectorStoreUnavailableError
from rabbithole.core.models import Chunk
from rabbithole.store.chroma_store import ChromaStore

TOKEN = "a-chroma-token-for-the-test-0123456789"
PREFIX = "/chroma"


class _Model:
    model_id, dim = "test-model@1", 4


def _proxy(upstream: str, header: str, expected: str, seen: list[str]) -> ThreadingHTTPServer:
    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            seen.append(self.path)
            if self.headers.get(header) != expected:
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if not self.path.startswith(f"{PREFIX}/"):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {"Content-Type": self.headers.get("Content-Type") or "application/json"}
            answer = httpx.request(
                self.command, upstream + self.path[len(PREFIX) :], content=body, headers=headers, timeout=60
            )
            self.send_response(answer.status_code)
            self.send_header("Content-Type", answer.headers.get("content-type", "application/json"))
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = do_PUT = do_DELETE = _forward

        def log_message(self, *_args: object) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), Forward)


@pytest.fixture(params=["Authorization", "X-Chroma-Token"])
def proxied(
    request: pytest.FixtureRequest, chroma_server: ChromaServer
) -> Iterator[tuple[str, str, list[str]]]:
    """(the proxy's URL with the prefix, the token header, the paths it was asked for)."""
    chroma_server.start()
    header: str = request.param
    expected = f"Bearer {TOKEN}" if header == "Authorization" else TOKEN
    seen: list[str] = []
    proxy = _proxy(chroma_server.url, header, expected, seen)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}{PREFIX}", header, seen
    finally:
        proxy.shutdown()
        proxy.server_close()


@pytest.mark.timeout(120)
def test_a_server_behind_a_path_prefix_with_a_token(
    proxied: tuple[str, str, list[str]], chroma_server: ChromaServer, tmp_path: Path
) -> None:
    url, header, seen = proxied
    database = chroma_server.vectors().database
    settings = VectorSettings(url=url, token=TOKEN, token_header=header, database=database)  # type: ignore[arg-type]
    store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), settings)
    vectors = store.open("Gesetze", _Model(), create=True)
    chunk_vectors = np.eye(4, dtype=np.float32)[:2]
    chunks = [
        Chunk(
            id=f"c:AtG.pdf:{i}",
            collection="Gesetze",
            document="AtG.pdf",
            ordinal=i,
            text="t",
            start=0,
            end=1,
            page=1,
            page_end=1,
            section=None,
            heading="",
        )
        for i in range(2)
    ]
    vectors.upsert(chunks, chunk_vectors)
    assert vectors.query(chunk_vectors[1], 1)[0].id == "c:AtG.pdf:1"
    assert seen and all(path.startswith(f"{PREFIX}/api/v2/") for path in seen)
    # the same collection, read from the server directly: the proxy only forwarded
    direct = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), chroma_server.vectors(database))
    assert direct.open("Gesetze").count() == 2
    store.close()
    direct.close()

    wrong = VectorSettings(url=url, token="not-the-token-0123456789", token_header=header, database=database)  # type: ignore[arg-type]
    refused = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), wrong)
    with pytest.raises(StoreError, match="refused the request \\(401\\)") as err:
        refused.open("Gesetze")
    assert not isinstance(err.value, VectorStoreUnavailableError)
    assert "not-the-token" not in str(err.value) and TOKEN not in str(err.value)
