"""Who may use the desk: tokens, the sign-in form, CSRF, security headers, the token file."""

from __future__ import annotations

import json
import stat

import pytest
from toolhooks.records._errors import ConfigError
from toolhooks.web import load_tokens
from toolhooks.web._auth import CSP, TOKENS_ENV, add_token

from .conftest import SECRETS


def test_no_token_or_a_wrong_one_is_401_for_the_api(client):
    for headers in ({}, {"authorization": "Bearer wrong-token-value-123"}, {"authorization": "x"}):
        answer = client.get("/api/approvals", headers=headers)
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "token" in answer.json()["detail"]


def test_a_browser_without_a_token_gets_the_sign_in_form_and_then_a_cookie(client):
    page = client.get("/history", follow_redirects=False)
    assert page.status_code == 401
    assert 'name="token"' in page.text and 'value="/history"' in page.text
    wrong = client.post("/login", data={"token": "nope", "next": "/history"})
    assert wrong.status_code == 401 and "not valid" in wrong.text
    signed = client.post(
        "/login", data={"token": SECRETS["bob"], "next": "/history"}, follow_redirects=False
    )
    assert signed.status_code == 303 and signed.headers["location"] == "/history"
    cookie = signed.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = client.get("/history")
    assert page.status_code == 200 and "signed in as <b>bob</b>" in page.text


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil"])
def test_sign_in_never_redirects_off_the_desk(client, target):
    signed = client.post(
        "/login", data={"token": SECRETS["alice"], "next": target}, follow_redirects=False
    )
    assert signed.headers["location"] == "/"


def test_posts_need_the_callers_own_csrf_token(agent, api, client):
    paused = agent().call({"name": "write", "params": {"path": "a", "text": "b"}})
    alice, bob = api("alice"), api("bob")
    url = f"/api/approvals/{paused.pending.id}/decision"
    body = {"decision": "allow-once"}
    missing = client.post(url, json=body, headers=alice.auth)
    assert missing.status_code == 403 and "CSRF" in missing.json()["detail"]
    borrowed = client.post(url, json=body, headers={**alice.auth, "x-csrf-token": bob.csrf})
    assert borrowed.status_code == 403
    assert alice.get(f"/api/approvals/{paused.pending.id}").json()["state"] == "pending"
    assert alice.decide(paused.pending.id, "allow-once").status_code == 200


def test_every_answer_carries_a_strict_content_security_policy(client, api):
    for answer in (client.get("/"), client.get("/login"), api().get("/api/approvals"),
                   api().get("/"), client.get("/static/desk.css")):  # fmt: skip
        assert answer.headers["content-security-policy"] == CSP
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
    assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP


def test_the_openapi_document_needs_a_token_and_has_no_cdn_docs(client, api):
    assert client.get("/api/openapi.json").status_code == 401
    document = api().get("/api/openapi.json").json()
    assert "/api/approvals/{key}/decision" in document["paths"]
    assert "/api/stream" not in document["paths"]
    assert client.get("/docs").status_code == 401 and api().get("/docs").status_code == 404


def test_first_start_makes_one_token_kept_only_as_a_hash(tmp_path):
    path = tmp_path / "tokens.json"
    tokens, secret = load_tokens(path, environ={})
    assert secret is not None and tokens.names == ["admin"]
    assert secret not in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert tokens.check(secret).name == "admin"
    again, none = load_tokens(path, environ={})
    assert none is None and again.check(secret).name == "admin"
    carol = add_token(path, "carol")
    tokens, _ = load_tokens(path, environ={})
    assert tokens.names == ["admin", "carol"] and tokens.check(carol).name == "carol"
    with pytest.raises(ConfigError, match="exists already"):
        add_token(path, "carol")


def test_tokens_from_the_environment_win_and_bad_ones_are_one_line_errors(tmp_path):
    tokens, made = load_tokens(tmp_path / "t.json", environ={TOKENS_ENV: "ops=0123456789abcdef0"})
    assert made is None and tokens.names == ["ops"] and not (tmp_path / "t.json").exists()
    for bad in ("ops", "ops=short", "=0123456789abcdef0", "a b=0123456789abcdef0", ","):
        with pytest.raises(ConfigError) as caught:
            load_tokens(tmp_path / "t.json", environ={TOKENS_ENV: bad})
        assert "\n" not in str(caught.value) and TOKENS_ENV in str(caught.value)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"tokens": {"x": "not-a-digest"}}))
    with pytest.raises(ConfigError, match="cannot be read"):
        load_tokens(broken, environ={})
