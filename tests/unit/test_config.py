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
