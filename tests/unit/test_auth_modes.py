"""server.auth: none (loopback only), token, accounts; what each combination with server.token and the
address means, and what start-up refuses (before anything listens)."""

from __future__ import annotations

import pytest

from rabbithole.core.config.network import ServerSettings
from rabbithole.core.errors import ConfigurationError

TOKEN = "a-token-long-enough-for-the-check"


@pytest.mark.parametrize(
    ("given", "mode"),
    [
        ({}, "none"),
        ({"token": TOKEN}, "token"),
        ({"auth": "token", "token": TOKEN}, "token"),
        ({"auth": "accounts"}, "accounts"),
        ({"auth": "none"}, "none"),
    ],
)
def test_the_mode(given: dict[str, str], mode: str) -> None:
    server = ServerSettings.model_validate(given)
    assert server.auth_mode == mode
    server.require_token_off_loopback()  # all fine on 127.0.0.1


@pytest.mark.parametrize("given", [{"auth": "accounts"}, {"token": TOKEN}, {"auth": "token", "token": TOKEN}])
def test_off_loopback_with_token_or_accounts(given: dict[str, str]) -> None:
    ServerSettings.model_validate({"host": "0.0.0.0", **given}).require_token_off_loopback()


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"host": "0.0.0.0"}, "refusing to listen on 0.0.0.0"),
        ({"host": "0.0.0.0", "auth": "none"}, "refusing to listen on 0.0.0.0"),
        ({"auth": "token"}, "server.auth is token but server.token is empty"),
        ({"auth": "accounts", "token": TOKEN}, "server.auth is accounts but server.token is set"),
        ({"auth": "none", "token": TOKEN}, "server.auth is none but server.token is set"),
    ],
)
def test_what_start_up_refuses(given: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as refused:
        ServerSettings.model_validate(given).require_token_off_loopback()
    assert TOKEN not in str(refused.value)


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="auth"):
        ServerSettings.model_validate({"auth": "oidc"})
