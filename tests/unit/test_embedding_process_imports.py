"""The embedding process starts light: it must not import the settings (pydantic and the configuration cost
its start about a tenth of a second of CPU before the model can load, while ingestion waits for it)."""

from __future__ import annotations

import json
import subprocess
import sys

CHILD_MODULES = (
    "rabbithole.embeddings.child_main",
    "rabbithole.embeddings.local",
    "rabbithole.embeddings.use_multilingual",
    "rabbithole.embeddings.e5_multilingual",
)


def test_the_embedding_process_imports_no_settings() -> None:
    probe = f"import sys, json; import {', '.join(CHILD_MODULES)}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert [name for name in ("pydantic", "rabbithole.core.config") if name in loaded] == []
