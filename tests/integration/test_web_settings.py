"""Web research is off by default: ``Services.web_searcher`` is None until ``web_research.searxng_url`` is
set (in settings or the environment); an unusable address stops start-up with a message naming the
variable."""

from __future__ import annotations

import pytest

from fixtures.services import ServicesFactory
from rabbithole.core.config import load_settings
from rabbithole.core.errors import ConfigurationError
from rabbithole.web import WebSearcher


def test_off_by_default_on_with_an_address(make_services: ServicesFactory) -> None:
    assert make_services().web_searcher is None
    services = make_services(web_research={"searxng_url": "http://127.0.0.1:8888/"})
    searcher = services.web_searcher
    assert isinstance(searcher, WebSearcher) and services.web_searcher is searcher
    assert searcher.client.base_url == "http://127.0.0.1:8888"
    assert searcher.embedder is services.embedder


def test_address_from_the_environment_and_refused_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RABBITHOLE_WEB_RESEARCH__SEARXNG_URL", "http://searx.local:8080")
    monkeypatch.setenv("RABBITHOLE_WEB_RESEARCH__MAX_PAGES", "3")
    settings = load_settings()
    assert (
        settings.web_research.searxng_url == "http://searx.local:8080"
        and settings.web_research.max_pages == 3
    )
    monkeypatch.setenv("RABBITHOLE_WEB_RESEARCH__SEARXNG_URL", "ftp://searx.local")
    with pytest.raises(ConfigurationError, match="RABBITHOLE_WEB_RESEARCH__SEARXNG_URL"):
        load_settings()
    monkeypatch.setenv("RABBITHOLE_WEB_RESEARCH__SEARXNG_URL", "  ")
    assert load_settings().web_research.searxng_url is None
