"""The runs list over a real socket: filtered by status and by words of the question, counted with the same
filters, a run deleted from it; a question longer than the limit refused with the limit named (never cut)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings, load_settings
from rabbithole.research.models import RunStatus
from rabbithole.runs.store import RunStore

QUESTIONS: dict[str, RunStatus] = {
    "Welche Grenzwerte gelten für beruflich exponierte Personen?": "done",
    "Wer genehmigt die Anzeige nach § 57?": "cancelled",
    "Welche GRENZWERTE gelten für die Bevölkerung?": "error",
    "Was gilt für 100% der Fälle_a?": "done",
}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return load_settings(storage={"data_dir": tmp_path_factory.mktemp("run-list") / "data"})


@pytest.fixture(scope="module")
def api(settings: Settings) -> Iterator[str]:
    settings.storage.data_dir.mkdir(parents=True, exist_ok=True)
    store = RunStore(Path(settings.storage.catalog_path))
    for question, status in QUESTIONS.items():
        store.create(question, ["gesetze"], "quick", status=status)
    store.close()
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def questions(api: str, **params: str | list[str]) -> tuple[list[str], int]:
    response = httpx.get(f"{api}/api/runs", params=params)
    assert response.status_code == 200, response.text
    page = response.json()
    return [r["question"] for r in page["items"]], page["total"]


def test_the_list_is_searched_by_the_question_and_filtered_by_status(api: str) -> None:
    found, total = questions(api, q="grenzwerte")  # case ignored
    assert found == [
        "Welche GRENZWERTE gelten für die Bevölkerung?",
        "Welche Grenzwerte gelten für beruflich exponierte Personen?",
    ]
    assert total == 2
    assert questions(api, q="grenzwerte", status="done") == (
        ["Welche Grenzwerte gelten für beruflich exponierte Personen?"],
        1,
    )
    assert questions(api, q="§ 57", status=["cancelled", "error"])[1] == 1
    assert questions(api, q="100%")[0] == ["Was gilt für 100% der Fälle_a?"]  # % and _ are no wildcards
    assert questions(api, q="0_")[1] == 0 and questions(api, q="e_a")[1] == 1
    assert questions(api, q="   ")[1] == len(QUESTIONS)  # blank: no filter
    assert httpx.get(f"{api}/api/runs", params={"q": "x" * 201}).status_code == 422


def test_a_run_is_deleted_from_the_list(api: str) -> None:
    found, _ = questions(api, q="Bevölkerung")
    run_id = httpx.get(f"{api}/api/runs", params={"q": "Bevölkerung"}).json()["items"][0]["run_id"]
    assert found and httpx.delete(f"{api}/api/runs/{run_id}").status_code == 200
    assert questions(api, q="Bevölkerung") == ([], 0)


def test_a_question_over_the_limit_is_refused_with_the_limit_named(api: str) -> None:
    body = {"question": "Grenzwerte? " * 1700, "collections": ["gesetze"], "mode": "quick"}
    refused = httpx.post(f"{api}/api/runs", json=body)
    assert refused.status_code == 422
    assert "question" in refused.json()["error"]["message"] and "4000" in refused.json()["error"]["message"]
    found, _ = questions(api, q="Grenzwerte? Grenzwerte?")
    assert found == []  # nothing was started with a cut question
