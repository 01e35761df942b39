"""Which collections' vector indexes were found damaged, kept in a file beside the store
(``data_dir/vector-index-damage.json``) so that no later process opens them again (a damaged HNSW index
crashes the process that reads it) until they are rebuilt from the catalog."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

DAMAGE_FILE = "vector-index-damage.json"


class DamageRecord:
    """Collection name -> why its index is damaged. Thread-safe; written atomically; read anew on every
    question, so what another process found counts here too."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # unreadable: no collection is known damaged (the next check writes it anew)
        if not isinstance(data, dict):
            return {}
        return {str(name): str(reason) for name, reason in data.items()}

    def reason(self, collection: str) -> str | None:
        return self.load().get(collection)

    def mark(self, damaged: dict[str, str]) -> None:
        if not damaged:
            return
        with self._lock:
            self._write({**self.load(), **damaged})

    def clear(self, collection: str) -> None:
        with self._lock:
            current = self.load()
            if current.pop(collection, None) is not None:
                self._write(current)

    def _write(self, data: dict[str, str]) -> None:
        if not data:
            self.path.unlink(missing_ok=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        partial.replace(self.path)
