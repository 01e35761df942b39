"""The child process of :mod:`rabbithole.store.probe`: opens an embedded Chroma folder and reads each named
collection as a search would (count, one stored vector, a nearest-neighbour query), saying on stdout where it
is, so that a collection whose index crashes or hangs the process is known by name.

    python -m rabbithole.store.probe_child CHROMA_DIR < names.json    # ["rh_a_1234abcd", ...]

Lines: ``start I``, then ``ok I`` or ``fail I <message>`` (a Python error), for the I-th name. Imports only
chromadb and numpy: it starts fast and never loads a model.
"""

from __future__ import annotations

import json
import sys


def _check(client: object, chroma_name: str) -> None:
    import numpy as np

    handle = client.get_collection(chroma_name, embedding_function=None)  # type: ignore[attr-defined]
    count = int(handle.count())
    if count == 0:
        return
    first = handle.get(limit=1, include=["embeddings"])
    vectors = first.get("embeddings")
    if vectors is None or len(vectors) == 0:
        raise RuntimeError("the index holds vectors but none could be read back")
    query = np.asarray(vectors[0], dtype=np.float32).reshape(1, -1)
    handle.query(query_embeddings=query, n_results=min(count, 3), include=["distances"])


def main(argv: list[str]) -> int:
    import chromadb
    from chromadb.config import Settings

    names = [str(n) for n in json.loads(sys.stdin.read() or "[]")]
    client = chromadb.PersistentClient(path=argv[0], settings=Settings(anonymized_telemetry=False))
    for index, name in enumerate(names):
        print(f"start {index}", flush=True)
        try:
            _check(client, name)
        except Exception as exc:
            message = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            print(f"fail {index} {message}", flush=True)
        else:
            print(f"ok {index}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
