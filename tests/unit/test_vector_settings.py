"""vectors.url and its companions: what switches the vector store to a Chroma server, and what is refused."""

from __future__ import annotations

import pytest

from rabbithole.core.config import load_settings
from rabbithole.core.errors import ConfigurationError
from rabbithole.store.chroma_server import ChromaServer
from rabbithole.store.chroma_store import ChromaStore


def test_unset_is_the_embedded_store() -> None:
    settings = load_settings()
    assert settings.vectors.url == "" and not settings.vectors.server


def test_the_environment_switches_to_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_VECTORS__URL", " https://chroma.example.org:8443/chroma/ ")
    monkeypatch.setenv("RABBITHOLE_VECTORS__TOKEN", "a-token-of-enough-length")
    monkeypatch.setenv("RABBITHOLE_VECTORS__TOKEN_HEADER", "X-Chroma-Token")
    monkeypatch.setenv("RABBITHOLE_VECTORS__DATABASE", "team-a")
    vectors = load_settings().vectors
    assert vectors.server and vectors.url == "https://chroma.example.org:8443/chroma"
    assert (vectors.token_header, vectors.database) == ("X-Chroma-Token", "team-a")
    store = ChromaStore.from_settings(load_settings().storage, vectors)  # connects at its first call only
    assert store.location == "server https://chroma.example.org:8443/chroma"
    assert store.damage is None and store.sessions is None
    assert isinstance(store.server, ChromaServer) and store.server.label.endswith("/chroma")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("chroma:8000", "not an http:// or https:// URL"),
        ("ftp://chroma:8000", "not an http:// or https:// URL"),
        ("http://chroma:99999", "not a valid URL"),
        ("http://chroma:8000?tenant=x", "query or fragment"),
    ],
)
def test_a_bad_url_names_the_variable(monkeypatch: pytest.MonkeyPatch, url: str, says: str) -> None:
    monkeypatch.setenv("RABBITHOLE_VECTORS__URL", url)
    with pytest.raises(ConfigurationError, match="RABBITHOLE_VECTORS__URL") as info:
        load_settings()
    assert says in str(info.value)
    assert info.value.exit_code == 78


def test_a_password_in_the_url_is_refused_without_repeating_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for url in ("http://admin:s3cret-pass@chroma:8000", "http://admin:s3cret-pass@chroma:notaport"):
        monkeypatch.setenv("RABBITHOLE_VECTORS__URL", url)
        with pytest.raises(ConfigurationError, match=r"vectors\.token") as info:
            load_settings()
        assert "s3cret-pass" not in str(info.value)


def test_a_bad_database_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_VECTORS__DATABASE", "no spaces/slashes")
    with pytest.raises(ConfigurationError, match="RABBITHOLE_VECTORS__DATABASE"):
        load_settings()
