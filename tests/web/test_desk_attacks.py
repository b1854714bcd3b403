"""Issue #21 items 8 and 9, and the desk attacked from outside: DNS rebinding (a foreign Host),
cross-origin posts, the sign-in cookie, oversized bodies. Each test is an attack that must fail."""

from __future__ import annotations

import time

import pytest
from toolhooks.web import Sessions, Tokens
from toolhooks.web._auth import COOKIE, _digest

from .conftest import SECRETS

FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:8765",
    "127.0.0.1.evil.example",
    "localhost.evil.example:8765",
    "127.0.0.1:80@evil.example",
    "",
]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_page_on_a_rebinding_domain_cannot_use_the_desk(client, api, host):
    alice = api("alice")
    for path in ("/", "/login", "/api/me", "/api/approvals", "/api/calls", "/static/desk.css"):
        answer = client.get(path, headers={**alice.auth, "host": host})
        assert answer.status_code == 421, (path, answer.status_code)
    post = client.post(
        "/api/approvals/x/decision",
        json={"decision": "allow-once"},
        headers={**alice.auth, "x-csrf-token": alice.csrf, "host": host},
    )
    assert post.status_code == 421
    assert "421" not in post.text and "evil" not in post.text  # the foreign name is not echoed


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_the_desk_answers_to_its_own_names(client, api, host):
    answer = client.get("/api/me", headers={**api("alice").auth, "host": host})
    assert answer.status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example"])
def test_a_cross_origin_post_is_refused_even_with_token_and_csrf(agent, client, api, origin):
    paused = agent().call({"name": "write", "params": {"path": "a", "text": "b"}})
    alice = api("alice")
    answer = client.post(
        f"/api/approvals/{paused.pending.id}/decision",
        json={"decision": "allow-once"},
        headers={**alice.auth, "x-csrf-token": alice.csrf, "origin": origin},
    )
    assert answer.status_code == 403
    assert alice.get(f"/api/approvals/{paused.pending.id}").json()["state"] == "pending"
    same = client.post(
        f"/api/approvals/{paused.pending.id}/decision",
        json={"decision": "allow-once"},
        headers={**alice.auth, "x-csrf-token": alice.csrf, "origin": "http://127.0.0.1:8765"},
    )
    assert same.status_code == 200


def sign_in(client, name: str = "alice"):
    return client.post("/login", data={"token": SECRETS[name], "next": "/"}, follow_redirects=False)


def test_the_cookie_is_a_server_side_session_not_the_token(client):
    signed = sign_in(client)
    header = signed.headers["set-cookie"]
    session_id = client.cookies.get(COOKIE)
    assert session_id and session_id != SECRETS["alice"] and SECRETS["alice"] not in header
    flags = header.lower()
    assert "httponly" in flags and "samesite=strict" in flags and "max-age=" in flags
    assert "secure" not in flags  # plain HTTP: a Secure cookie would never be sent back
    assert client.get("/api/me").json()["name"] == "alice"
    client.cookies.clear()
    client.cookies.set(COOKIE, SECRETS["alice"])  # the raw token is no longer a credential
    assert client.get("/api/me").status_code == 401
    client.cookies.set(COOKIE, "made-up-session-id-" + "x" * 20)
    assert client.get("/api/me").status_code == 401


def test_the_token_is_never_in_a_url_or_a_page(client):
    signed = sign_in(client)
    assert SECRETS["alice"] not in signed.headers["location"]
    for path in ("/", "/history", "/grants", "/calls", "/login"):
        page = client.get(path)
        assert SECRETS["alice"] not in page.text and SECRETS["alice"] not in str(page.url)


def test_signing_out_ends_the_session(client):
    sign_in(client)
    stolen = client.cookies.get(COOKIE)
    me = client.get("/api/me").json()
    out = client.post("/logout", headers={"x-csrf-token": me["csrf_token"]}, follow_redirects=False)
    assert out.status_code == 303
    client.cookies.set(COOKIE, stolen)  # a copy taken before sign-out is worth nothing after
    assert client.get("/api/me").status_code == 401


def test_a_session_expires(desk_app, client):
    desk_app.state.sessions.ttl_s = 0.3
    sign_in(client)
    assert client.get("/api/me").status_code == 200
    deadline = time.monotonic() + 10
    while client.get("/api/me").status_code == 200 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get("/api/me").status_code == 401


def test_a_session_ends_with_its_token():
    sessions = Sessions()
    both = Tokens({"alice": _digest(SECRETS["alice"]), "bob": _digest(SECRETS["bob"])})
    bob = both.check(SECRETS["bob"])
    assert bob is not None
    session_id = sessions.start(bob)
    assert sessions.identity(session_id, both) == bob
    revoked = Tokens({"alice": _digest(SECRETS["alice"])})  # bob's token removed, desk reloaded
    assert sessions.identity(session_id, revoked) is None
    assert sessions.identity(session_id, both) is None  # and it stays ended


def test_over_https_the_cookie_is_secure(desk_app):
    from fastapi.testclient import TestClient

    with TestClient(desk_app, base_url="https://127.0.0.1") as secure:
        header = sign_in(secure).headers["set-cookie"].lower()
    assert "secure" in header


def test_a_50_mb_body_is_refused_before_it_is_read(client, api):
    alice = api("alice")
    answer = client.post(
        "/api/approvals/x/decision",
        content=b"{" + b" " * (50 << 20) + b"}",
        headers={**alice.auth, "x-csrf-token": alice.csrf, "content-type": "application/json"},
    )
    assert answer.status_code == 413


def test_a_csrf_token_from_before_a_restart_is_stale(desk_app, client, api):
    """CSRF tokens are keyed per server start: one a page kept from before a restart (or read
    from another desk) is refused."""
    from toolhooks.web import create_app

    alice = api("alice")
    reloaded = Tokens({name: _digest(secret) for name, secret in SECRETS.items()})
    restarted = create_app(desk_app.state.desk, reloaded)  # what a restarted desk builds
    from fastapi.testclient import TestClient

    with TestClient(restarted, base_url="http://127.0.0.1") as fresh:
        stale = fresh.post(
            "/api/approvals/x/decision",
            json={"decision": "allow-once"},
            headers={**alice.auth, "x-csrf-token": alice.csrf},
        )
        assert stale.status_code == 403 and "CSRF" in stale.json()["detail"]
