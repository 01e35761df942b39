"""Attacks on accounts mode through a real server, on both backends: session fixation, CSRF (no header, a
wrong one, another origin), a token in the query string, brute force against the rate limit, very long
passwords, SQL-looking names, and a disabled account's session and token, which stop at once. (Timing of
unknown against known names is measured in benchmarks/bench_accounts.py, not asserted here.)"""

from __future__ import annotations

import json
import os
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import update

from fixtures.accounts import PASSWORD, AccountsWorld
from fixtures.cli_runs import rabbithole as run_cli
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.accounts.tables import SessionRow
from rabbithole.api import accounts_auth
from rabbithole.api.runs import stream as run_stream
from rabbithole.api.security import SESSION_COOKIE

pytestmark = pytest.mark.timeout(600)


def _cookie_header(answer: httpx.Response) -> str:
    headers = [h for h in answer.headers.get_list("set-cookie") if h.startswith(f"{SESSION_COOKIE}=")]
    assert len(headers) == 1, answer.headers
    return headers[0]


def test_the_session_cookie(accounts_world: AccountsWorld) -> None:
    accounts_world.accounts.add_user("cookie-check", PASSWORD)
    with httpx.Client(base_url=accounts_world.url) as client:
        answer = client.post("/api/session", json={"name": "cookie-check", "password": PASSWORD})
        assert answer.status_code == 204, answer.text
        attributes = [part.strip().lower() for part in _cookie_header(answer).split(";")]
        assert "httponly" in attributes and "samesite=strict" in attributes and "path=/" in attributes
        assert any(a.startswith("max-age=") for a in attributes)  # ends with the session
        assert "secure" not in attributes  # plain http here; over https (X-Forwarded-Proto) it is set
        state = client.get("/api/session").json()
        assert state["user"] == "cookie-check" and state["auth"] == "accounts" and state["via"] == "cookie"
        csrf = state["csrf_token"]
        signed_out = client.delete("/api/session", headers={"X-CSRF-Token": csrf})
        assert signed_out.status_code == 204
        assert client.get("/api/collections").status_code == 401


def test_the_cookie_is_secure_over_https(accounts_world: AccountsWorld) -> None:
    """Behind a TLS-terminating proxy (X-Forwarded-Proto: https, trusted from 127.0.0.1) the cookie is
    Secure: the browser never sends it over plain http."""
    with httpx.Client(base_url=accounts_world.url) as client:
        answer = client.post(
            "/api/session",
            json={"name": "alice", "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https"},
        )
    assert answer.status_code == 204
    assert "secure" in [part.strip().lower() for part in _cookie_header(answer).split(";")]


def test_an_ended_session_is_refused(accounts_world: AccountsWorld) -> None:
    user = accounts_world.accounts.add_user("short-lived", PASSWORD)
    client, _ = accounts_world.sign_in("short-lived")
    with closing(client):
        assert client.get("/api/collections").status_code == 200
        with accounts_world.accounts.database.engine.begin() as conn:  # the session's end has come
            ended = datetime.now(UTC) - timedelta(seconds=1)
            ended_now = update(SessionRow).where(SessionRow.user_id == user.id)
            conn.execute(ended_now.values(expires_at=ended.replace(tzinfo=None)))
        assert client.get("/api/collections").status_code == 401
        assert client.get("/api/session").json()["user"] is None


def test_session_fixation(accounts_world: AccountsWorld) -> None:
    """An id planted before the sign-in is never the session's: a made-up one, or the attacker's own
    session (which the sign-in ends)."""
    accounts_world.accounts.add_user("fixation-victim", PASSWORD)
    accounts_world.accounts.add_user("fixation-attacker", PASSWORD)
    with httpx.Client(base_url=accounts_world.url) as attacker:
        attacker.post("/api/session", json={"name": "fixation-attacker", "password": PASSWORD})
        attackers_id = attacker.cookies[SESSION_COOKIE]
    for planted in ("chosen-by-the-attacker", attackers_id):
        with httpx.Client(base_url=accounts_world.url, cookies={SESSION_COOKIE: planted}) as victim:
            answer = victim.post("/api/session", json={"name": "fixation-victim", "password": PASSWORD})
            assert answer.status_code == 204
            new_id = _cookie_header(answer).split(";")[0].split("=", 1)[1]
            assert new_id != planted
        with httpx.Client(base_url=accounts_world.url, cookies={SESSION_COOKIE: planted}) as replay:
            assert replay.get("/api/collections").status_code == 401
            assert replay.get("/api/session").json()["user"] is None


def test_csrf(accounts_world: AccountsWorld) -> None:
    client, csrf = accounts_world.sign_in("eddie")
    body = {"json": {"version": 1, "documents": {}}}
    path = f"/api/collections/{RUN_COLLECTION}/registry"
    with closing(client):
        refused = client.put(path, **body)
        assert refused.status_code == 403 and refused.json()["error"]["type"] == "CsrfRefused"
        assert client.put(path, headers={"X-CSRF-Token": "guessed"}, **body).status_code == 403
        other_origin = {"X-CSRF-Token": csrf, "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
        foreign = client.put(path, headers=other_origin, **body)
        assert foreign.status_code == 403 and foreign.json()["error"]["type"] == "CrossOriginRefused"
        assert client.put(path, headers={"X-CSRF-Token": csrf}, **body).status_code == 200
        assert client.get(path).status_code == 200  # reading needs no CSRF token
    other, others_csrf = accounts_world.sign_in("alice")
    with closing(other), httpx.Client(base_url=accounts_world.url, cookies=client.cookies) as again:
        assert again.put(path, headers={"X-CSRF-Token": others_csrf}, **body).status_code == 403


def test_a_token_in_the_query_string_is_not_read(accounts_world: AccountsWorld) -> None:
    token = accounts_world.tokens["alice"]
    with httpx.Client(base_url=accounts_world.url) as client:
        for name in ("token", "access_token", "api_key", "authorization"):
            answer = client.get("/api/collections", params={name: token})
            assert answer.status_code == 401, name
            assert token not in answer.text


def test_brute_force_meets_the_rate_limit(accounts_world: AccountsWorld) -> None:
    accounts_world.accounts.add_user("brute-target", PASSWORD)
    with httpx.Client(base_url=accounts_world.url) as client:
        for attempt in range(5):
            answer = client.post(
                "/api/session", json={"name": "brute-target", "password": f"guess {attempt}"}
            )
            assert answer.status_code == 401
            assert answer.json()["error"]["message"] == "wrong name or password"
        locked = client.post("/api/session", json={"name": "brute-target", "password": PASSWORD})
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 0
        assert SESSION_COOKIE not in locked.headers.get("set-cookie", "")
    failed = accounts_world.accounts.audit.entries(user_name="brute-target", action="sign_in_failed")
    assert len(failed) == 5 and all(e.address == "127.0.0.1" for e in failed)
    for entry in accounts_world.accounts.audit.entries(user_name="brute-target"):
        assert "guess" not in entry.target and PASSWORD not in entry.target


@pytest.mark.parametrize("length", [257, 4097, 1_000_000])
def test_very_long_passwords_are_refused_cleanly(accounts_world: AccountsWorld, length: int) -> None:
    password = "p" * length
    with httpx.Client(base_url=accounts_world.url) as client:
        answer = client.post("/api/session", json={"name": "alice", "password": password})
    expected = 413 if length > 1024 * 1024 - 100 else 422  # the body limit (server.max_request_kb) first
    assert answer.status_code == expected, answer.text[:200]
    assert password[:200] not in answer.text and answer.json()["error"]["type"]


@pytest.mark.parametrize("name", ["alice' --", "' OR '1'='1", 'x" OR 1=1; DROP TABLE users; --', "%", "*"])
def test_sql_looking_names_sign_in_as_nobody(accounts_world: AccountsWorld, name: str) -> None:
    before = [u.name for u in accounts_world.accounts.users.list()]
    with httpx.Client(base_url=accounts_world.url) as client:
        answer = client.post("/api/session", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 401 and answer.json()["error"]["message"] == "wrong name or password"
    assert [u.name for u in accounts_world.accounts.users.list()] == before  # the table as it was


def test_a_disabled_account_stops_at_once(accounts_world: AccountsWorld) -> None:
    accounts_world.accounts.add_user("leaver", PASSWORD)
    _, token = accounts_world.accounts.create_token("leaver", "ci")
    client, _ = accounts_world.sign_in("leaver")
    bearer = {"Authorization": f"Bearer {token}"}
    with closing(client), httpx.Client(base_url=accounts_world.url, headers=bearer) as bot:
        assert client.get("/api/collections").status_code == 200
        assert bot.get("/api/collections").status_code == 200
        accounts_world.accounts.set_disabled("leaver", True)
        assert client.get("/api/collections").status_code == 401
        assert bot.get("/api/collections").status_code == 401
        refused = httpx.post(
            f"{accounts_world.url}/api/session", json={"name": "leaver", "password": PASSWORD}
        )
        assert refused.status_code == 401 and refused.json()["error"]["message"] == "wrong name or password"


#: The server's heartbeat and recheck intervals during the stream test, shortened from 15 s and 5 s (the
#: server runs in this process): the same check on the same pings, without waiting 15 s for the first one.
PING_S = 0.2
RECHECK_S = 1.0
#: The most lines the stream may send once the account is disabled: a check is due after RECHECK_S / PING_S
#: pings (two lines each), however slow the machine; forty times that is a stream that never ends.
MOST_LINES = 40 * 2 * int(RECHECK_S / PING_S)


def test_an_open_event_stream_ends_when_its_account_is_disabled(
    accounts_world: AccountsWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream checks its credential again while it runs (its pings included): disabling the account
    ends it within a ping or two after the next check is due, without a request of its own."""
    monkeypatch.setattr(run_stream, "PING_S", PING_S)
    monkeypatch.setattr(accounts_auth, "RECHECK_S", RECHECK_S)
    accounts_world.accounts.add_user("streamer", PASSWORD)
    _, token = accounts_world.accounts.create_token("streamer", "ci")
    bearer = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=accounts_world.url, headers=bearer, timeout=60) as client:
        with client.stream("GET", "/api/runs/events") as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()
            assert next(lines).startswith(("event:", "data:", "id:", ":"))
            accounts_world.accounts.set_disabled("streamer", True)
            after = [line for _, line in zip(range(MOST_LINES + 1), lines, strict=False)]
            assert len(after) <= MOST_LINES, "the stream went on after the account was disabled"
        assert client.get("/api/collections").status_code == 401


def test_the_audit_log_records_what_people_did(accounts_world: AccountsWorld) -> None:
    with accounts_world.client("rita") as rita:
        pdf = rita.get(f"/api/documents/{accounts_world.document_id}/pdf")
        assert pdf.status_code == 200
    opened = accounts_world.accounts.audit.entries(user_name="rita", action="pdf_opened")
    assert opened and opened[0].target == str(accounts_world.document_id)
    started = accounts_world.accounts.audit.entries(user_name="alice", action="run_started")
    assert len(started) >= 2  # the two runs of the fixture
    text = repr(accounts_world.accounts.audit.entries(limit=10_000))
    for secret in (PASSWORD, *accounts_world.tokens.values(), accounts_world.revoked_token):
        assert secret not in text


def test_the_cli_server_mode_with_a_personal_token(accounts_world: AccountsWorld, tmp_path: Path) -> None:
    """`rabbithole research --server URL` with RABBITHOLE_API_TOKEN: a reader's token runs on her
    collection; a non-member's is told it does not exist; no token: refused."""
    question = "Welche Grenzwerte gelten?"
    args = ["research", question, "-c", RUN_COLLECTION, "--mode", "quick", "--depth", "0", "--json"]
    args += ["--server", accounts_world.url]
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "client-data"),  # the client's own: nothing local
    }
    env.pop("RABBITHOLE_API_TOKEN", None)
    done = run_cli(args, {**env, "RABBITHOLE_API_TOKEN": accounts_world.tokens["rita"]}, timeout=240)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    with accounts_world.client("rita") as rita, accounts_world.client("nora") as nora:
        assert rita.get(f"/api/runs/{run_id}").status_code == 200
        assert nora.get(f"/api/runs/{run_id}").status_code == 404
    assert accounts_world.accounts.audit.entries(user_name="rita", action="run_started")  # hers, audited
    refused = run_cli(args, {**env, "RABBITHOLE_API_TOKEN": accounts_world.tokens["nora"]}, timeout=120)
    assert refused.returncode != 0 and "does not exist" in refused.stderr
    assert run_cli(args, env, timeout=120).returncode != 0
