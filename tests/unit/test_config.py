from __future__ import annotations

from pathlib import Path

import pytest

from rabbithole.core.config import load_settings, normalize_ollama_host
from rabbithole.core.config_docs import render
from rabbithole.core.errors import ConfigurationError

REPO = Path(__file__).resolve().parents[2]


def test_nested_settings_come_from_prefixed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_LLM__MODEL", "llama3.1:8b")
    monkeypatch.setenv("RABBITHOLE_INGESTION__CHUNK_SIZE", "900")
    monkeypatch.setenv("RABBITHOLE_STORAGE__DATA_DIR", "/tmp/rh-data")
    settings = load_settings()
    assert settings.llm.model == "llama3.1:8b"
    assert settings.ingestion.chunk_size == 900
    assert settings.storage.catalog_path == Path("/tmp/rh-data/catalog.sqlite3")


def test_invalid_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_INGESTION__CHUNK_SIZE", "ten")
    with pytest.raises(ConfigurationError) as info:
        load_settings()
    assert "RABBITHOLE_INGESTION__CHUNK_SIZE" in str(info.value)


def test_overlap_must_be_smaller_than_half_the_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_INGESTION__CHUNK_SIZE", "400")
    monkeypatch.setenv("RABBITHOLE_INGESTION__CHUNK_OVERLAP", "300")
    with pytest.raises(ConfigurationError, match="chunk_overlap"):
        load_settings()


def test_sentence_transformers_needs_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_EMBEDDINGS__PROVIDER", "sentence-transformers")
    with pytest.raises(ConfigurationError, match=r"embeddings\.model is required"):
        load_settings()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", ""),
        ("example.org", "http://example.org:11434"),
        ("10.0.0.5:9999", "http://10.0.0.5:9999"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("https://ollama.internal", "https://ollama.internal:443"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
    ],
)
def test_ollama_host_is_read_like_ollama_does(raw: str, expected: str) -> None:
    assert normalize_ollama_host(raw) == expected


def test_ollama_address_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert load_settings().llm.resolved_base_url == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:5555")
    assert load_settings().llm.resolved_base_url == "http://127.0.0.1:5555"
    monkeypatch.setenv("RABBITHOLE_LLM__BASE_URL", "http://127.0.0.1:7777/")
    assert load_settings().llm.resolved_base_url == "http://127.0.0.1:7777"


def test_openai_provider_requires_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_LLM__PROVIDER", "openai")
    with pytest.raises(ConfigurationError, match="base_url"):
        _ = load_settings().llm.resolved_base_url


def test_configuration_docs_are_in_sync_with_the_settings() -> None:
    documented = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert documented == render(), "run: python -m rabbithole.core.config_docs > docs/configuration.md"


# --- validated at load: addresses, the data folder, unknown variables ------------------------------------


@pytest.mark.parametrize(
    "value",
    ["garbage::", "http://[::1", "http://127.0.0.1:70000", "127.0.0.1:65536", "ftp://host:21", "http://:80"],
)
def test_malformed_ollama_host_is_refused_at_load_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", value)
    with pytest.raises(ConfigurationError, match="OLLAMA_HOST"):
        load_settings()


@pytest.mark.parametrize("value", ["[::1]:11434", "http://[::1]:11434", "ollama.internal:8080", "localhost"])
def test_well_formed_ollama_hosts_load(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("OLLAMA_HOST", value)
    assert load_settings().llm.resolved_base_url.startswith("http://")


def test_ollama_host_is_not_checked_when_nothing_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "garbage::")
    monkeypatch.setenv("RABBITHOLE_LLM__PROVIDER", "openai")
    monkeypatch.setenv("RABBITHOLE_LLM__BASE_URL", "http://127.0.0.1:8080/v1")
    assert load_settings().llm.resolved_base_url == "http://127.0.0.1:8080/v1"


def test_malformed_base_url_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_LLM__BASE_URL", "http://127.0.0.1:99999")
    with pytest.raises(ConfigurationError, match=r"RABBITHOLE_LLM__BASE_URL.*not a valid URL"):
        load_settings()


def test_data_dir_must_be_a_usable_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for bad, why in [(a_file, "is not a folder"), (a_file / "sub" / "deeper", "is a file, not a folder")]:
        monkeypatch.setenv("RABBITHOLE_STORAGE__DATA_DIR", str(bad))
        with pytest.raises(ConfigurationError, match=rf"RABBITHOLE_STORAGE__DATA_DIR.*{why}"):
            load_settings()
    creatable = tmp_path / "new" / "data"
    monkeypatch.setenv("RABBITHOLE_STORAGE__DATA_DIR", str(creatable))
    assert load_settings().storage.data_dir == creatable
    assert not creatable.exists()  # checked, not created: loading settings writes nothing


def test_unknown_variables_are_warned_about_with_the_closest_name(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RABBITHOLE_EMBEDDINGS__THREAD", "4")
    monkeypatch.setenv("RABBITHOLE_QWERTY_42", "1")
    monkeypatch.setenv("RABBITHOLE_LLM__MODEL", "qwen3:8b")  # known: no warning
    with caplog.at_level("WARNING", logger="rabbithole.core.config"):
        load_settings()
    assert [r.getMessage() for r in caplog.records] == [
        "unknown setting RABBITHOLE_EMBEDDINGS__THREAD is ignored (did you mean "
        "RABBITHOLE_EMBEDDINGS__THREADS?); see docs/configuration.md",
        "unknown setting RABBITHOLE_QWERTY_42 is ignored; see docs/configuration.md",
    ]


def test_tests_do_not_see_the_developers_settings() -> None:
    import os

    leaked = [n for n in os.environ if n.startswith("RABBITHOLE_") or n == "OLLAMA_HOST"]
    assert leaked == []
    assert not Path(".env").exists()
