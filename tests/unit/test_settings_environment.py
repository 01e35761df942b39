"""Settings from RABBITHOLE_* variables and .env: nesting, JSON for collections and groups, precedence,
and a clear message for a value that is not JSON where JSON is needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from rabbithole.core.config import Settings, load_settings
from rabbithole.core.environment import deep_merge, values_from_variables
from rabbithole.core.errors import ConfigurationError


class Inner(BaseModel):
    name: str = "x"
    tags: list[str] = []
    limits: dict[str, int] | None = None


class Outer(BaseModel):
    level: int = 1
    inner: Inner = Inner()


def test_nested_names_in_any_case_set_fields_and_unknown_names_are_left_out() -> None:
    values = values_from_variables(
        Outer,
        {
            "APP_LEVEL": "3",
            "app_inner__name": "y",
            "APP_INNER__NOPE": "1",
            "APP_NOPE__NAME": "z",
            "OTHER": "1",
        },
        "APP_",
    )
    assert values == {"level": "3", "inner": {"name": "y"}}
    assert Outer.model_validate(values) == Outer(level=3, inner=Inner(name="y"))


def test_collections_and_groups_are_json_and_fields_set_one_by_one_win_over_their_group() -> None:
    values = values_from_variables(
        Outer,
        {
            "APP_INNER__NAME": "field",
            "APP_INNER": '{"name": "group", "tags": ["a"]}',
            "APP_INNER__LIMITS": '{"k": 2}',
        },
        "APP_",
    )
    assert Outer.model_validate(values).inner == Inner(name="field", tags=["a"], limits={"k": 2})


def test_a_collection_that_is_not_json_is_refused_naming_the_variable() -> None:
    with pytest.raises(ConfigurationError, match=r"APP_INNER__TAGS: not valid JSON"):
        values_from_variables(Outer, {"APP_INNER__TAGS": "a,b"}, "APP_")


def test_deep_merge_keeps_what_the_update_does_not_set() -> None:
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"c": 5}, "e": 6}) == {
        "a": {"b": 1, "c": 5},
        "d": 3,
        "e": 6,
    }


def test_precedence_is_defaults_then_dotenv_then_environment_then_explicit_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "RABBITHOLE_LLM__MODEL=from-dotenv\nRABBITHOLE_INGESTION__CHUNK_SIZE=800\nUNRELATED=1\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("RABBITHOLE_LLM__MODEL", "from-environment")
    monkeypatch.setenv("RABBITHOLE_STORAGE__DATA_DIR", str(tmp_path / "env-data"))
    settings = load_settings(storage={"data_dir": tmp_path / "explicit"})
    assert settings.llm.model == "from-environment"
    assert settings.ingestion.chunk_size == 800
    assert settings.storage.data_dir == tmp_path / "explicit"
    assert settings.retrieval == Settings().retrieval


def test_a_list_setting_that_is_not_json_stops_loading_with_the_variable_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RABBITHOLE_SERVER__CORS_ORIGINS", "http://localhost:5173")
    with pytest.raises(ConfigurationError, match="RABBITHOLE_SERVER__CORS_ORIGINS: not valid JSON"):
        load_settings()
    monkeypatch.setenv("RABBITHOLE_SERVER__CORS_ORIGINS", '["http://localhost:5173"]')
    assert load_settings().server.cors_origins == ["http://localhost:5173"]


def test_the_compose_files_variables_in_a_dotenv_draw_no_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "RABBITHOLE_TOKEN=secret\nRABBITHOLE_MODEL=qwen3:8b\nRABBITHOLE_PUBLISH=127.0.0.1:8000\n"
        'RABBITHOLE_ALLOWED_HOSTS=["a.example"]\nRABBITHOLE_ROOT_PATH=/rh\nRABBITHOLE_LLM__MODLE=x\n',
        encoding="utf-8",
    )
    with caplog.at_level("WARNING", logger="rabbithole.core.config"):
        settings = load_settings()
    assert [r.getMessage().split(" is ignored")[0] for r in caplog.records] == [
        "unknown setting RABBITHOLE_LLM__MODLE"
    ]
    assert settings.server.token == Settings().server.token  # the compose file passes it on, not .env
