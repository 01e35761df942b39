"""The run registry over a real SQLite file: create, list newest first, filter, update, delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from rabbithole.core.errors import RunNotFoundError
from rabbithole.research.models import ResearchResult
from rabbithole.runs.store import RunStore


@pytest.fixture
def registry(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "catalog.sqlite3")


def test_create_list_filter_update_delete(registry: RunStore) -> None:
    first = registry.create("Frage eins?", ["sample"], "quick", {"depth": 1})
    second = registry.create("Question two?", ["a", "b"], "interactive")
    assert first.status == "queued" and first.overrides == {"depth": 1}
    assert [r.id for r in registry.list()] == [second.id, first.id]
    assert registry.get(second.id).collections == ["a", "b"]
    assert registry.get(first.id).created_at.tzinfo is not None

    registry.update(first.id, status="error", phase="dig", error="Ollama down")
    registry.update(first.id, phase="dig")  # other fields keep their values
    assert registry.get(first.id).error == "Ollama down"
    assert [r.id for r in registry.list(status=["error"])] == [first.id]

    result = ResearchResult(run_id=first.id, question="Frage eins?", language="de", status="done")
    registry.update(first.id, status="done", error=None, result=result)
    done = registry.get(first.id)
    assert done.status == "done" and done.error is None and done.result == result
    assert registry.get(first.id, with_result=False).result is None
    assert done.summary().run_id == first.id

    registry.delete(second.id)
    with pytest.raises(RunNotFoundError, match=second.id):
        registry.get(second.id)
    assert [r.id for r in registry.list(limit=1, offset=0)] == [first.id]
