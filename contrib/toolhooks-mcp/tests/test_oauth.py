"""OAuth 2.1 at the HTTP endpoint: JWTs signed with a local key, checked against its JWKS (a
file, and a URL served on 127.0.0.1); only a valid token calls, as the sender its claims name."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import httpx2
import jwt
import mcp_types as types
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError
from toolhooks import hookimpl
from toolhooks_mcp import OAuthTable, Proxy
from toolhooks_mcp._http import serve_http
from toolhooks_mcp._upstream import http_transport

from .test_http import free_port, until_listening

ISSUER = "https://login.example.test"
METADATA = "https://tools.example.test/.well-known/oauth-protected-resource/mcp"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwks(*keys: Any) -> dict[str, Any]:
    found = []
    for number, key in enumerate(keys):
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        found.append({**jwk, "kid": f"k{number}", "use": "sig", "alg": "RS256"})
    return {"keys": found}


def token(audience: str, key: Any = KEY, kid: str = "k0", **changes: Any) -> str:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "aud": audience,
        "sub": "user-42",
        "name": "Ada Lovelace",
        "groups": ["analyst"],
        "org": "acme",
        "iat": now,
        "exp": now + 300,
        **changes,
    }
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(audience: str) -> str:
    header = b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    body = b64(json.dumps({"iss": ISSUER, "aud": audience, "sub": "user-42",
                           "exp": int(time.time()) + 300}).encode())  # fmt: skip
    return f"{header}.{body}."


def hmac_with_the_public_key(audience: str) -> str:
    """The algorithm-confusion forgery: HS256 keyed with the public key's PEM."""
    pem = KEY.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "k1"}).encode())
    body = b64(json.dumps({"iss": ISSUER, "aud": audience, "sub": "user-42",
                           "exp": int(time.time()) + 300}).encode())  # fmt: skip
    signature = hmac.new(pem, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{b64(signature)}"


def tampered(audience: str) -> str:
    header, body, signature = token(audience, kid="k1").split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["groups"] = ["admin"]
    return f"{header}.{b64(json.dumps(claims).encode())}.{signature}"


class Seen:
    def __init__(self) -> None:
        self.senders: list[Any] = []

    @hookimpl
    def before_tool_call(self, call):
        self.senders.append(call.sender)


class Jwks(BaseHTTPRequestHandler):
    document: dict[str, Any] = {}
    served = 0

    def do_GET(self) -> None:
        body = json.dumps(self.document).encode()
        type(self).served += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def jwks_url():
    Jwks.document = jwks(OTHER_KEY, KEY)  # the signing key second: the kid picks it
    Jwks.served = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    server.shutdown()
    server.server_close()


def files() -> Server[Any]:
    tools = [
        types.Tool(name=name, input_schema={"type": "object"}) for name in ("echo", "write_file")
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", "done"))
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server("files", on_list_tools=list_tools, on_call_tool=call_tool)


def run_proxy(config: dict[str, Any], port: int, tokens: dict[str, str], seen: Seen) -> dict:
    proxy = Proxy(config, plugins=[seen], local={"files": files()})
    url = f"http://127.0.0.1:{port}/mcp"
    outcomes: dict[str, Any] = {}

    async def main() -> None:
        stop = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(serve_http, proxy, "127.0.0.1", port, stop)
            await until_listening(port)
            async with httpx2.AsyncClient() as http:
                for label, value in tokens.items():
                    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
                    answer = await http.post(
                        url,
                        json=body,
                        headers={
                            "Accept": "application/json, text/event-stream",
                            "Authorization": f"Bearer {value}",
                        },
                    )
                    outcomes[label] = answer.status_code
                    if answer.status_code == 401:
                        outcomes[label + ":www"] = answer.headers["www-authenticate"]
                metadata = await http.get(
                    f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
                )
                outcomes["metadata"] = metadata.json()
                bare = await http.get(
                    f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource"
                )
                outcomes["bare"] = bare.json()
                missing = await http.post(url, json={}, headers={"Accept": "application/json"})
                outcomes["missing"] = missing.status_code
                outcomes["missing:www"] = missing.headers.get("www-authenticate")
            headers = {"Authorization": f"Bearer {tokens['valid']}"}
            async with Client(http_transport(url, headers), cache=None) as client:
                outcomes["echo"] = await client.call_tool("files__echo", {"text": "hi"})
                outcomes["tools"] = [tool.name for tool in (await client.list_tools()).tools]
                with pytest.raises(MCPError) as hidden:
                    await client.call_tool("files__write_file", {"path": "/x", "content": "y"})
                outcomes["write"] = str(hidden.value)
            stop.set()

    anyio.run(main)
    return outcomes


def oauth_config(config, **source: str) -> dict[str, Any]:
    made = config(only=["Seen", "policy"], servers={})
    made["mcp"]["auth"] = {
        "oauth": {
            "issuer": ISSUER,
            "audience": "https://tools.example.test/mcp",
            "claims": {"role": "groups", "tenant": "org"},
            **source,
        }
    }
    made["tools"] = {
        "profile": "full",
        "by_sender": {"role:analyst": {"deny": ["files__write_file"]}},
    }
    return made


def check(outcomes: dict[str, Any], seen: Seen) -> None:
    assert outcomes["valid"] != 401  # past auth (a bare POST without a session is then a 400)
    for bad in ("expired", "audience", "issuer", "tampered", "none", "hs_confusion", "unknown_key"):
        assert outcomes[bad] == 401, bad
        assert f'resource_metadata="{METADATA}"' in outcomes[bad + ":www"]
    assert outcomes["missing"] == 401 and "resource_metadata=" in outcomes["missing:www"]
    assert outcomes["metadata"]["resource"] == "https://tools.example.test/mcp"
    assert outcomes["metadata"]["authorization_servers"] == [ISSUER]
    assert outcomes["bare"] == outcomes["metadata"]
    assert outcomes["echo"].content[0].text == "hi"
    # [tools.by_sender."role:analyst"] applies to the token's sender: the tool is not offered
    assert "files__echo" in outcomes["tools"] and "files__write_file" not in outcomes["tools"]
    assert outcomes["write"] == "Unknown tool: files__write_file"
    sender = seen.senders[0]
    assert (sender.id, sender.name, sender.roles, sender.tenant) == (
        "user-42", "Ada Lovelace", ("analyst",), "acme"
    )  # fmt: skip


def the_tokens() -> dict[str, str]:
    audience = "https://tools.example.test/mcp"
    return {
        "valid": token(audience, kid="k1"),
        "expired": token(audience, kid="k1", exp=int(time.time()) - 120),
        "audience": token("https://elsewhere.test/mcp", kid="k1"),
        "issuer": token(audience, kid="k1", iss="https://evil.test"),
        "tampered": tampered(audience),
        "none": unsigned(audience),
        "hs_confusion": hmac_with_the_public_key(audience),
        "unknown_key": token(audience, key=rsa.generate_private_key(65537, 2048), kid="k1"),
    }


def test_only_a_valid_token_calls_keys_from_a_jwks_url(config, jwks_url):
    seen = Seen()
    outcomes = run_proxy(oauth_config(config, jwks_url=jwks_url), free_port(), the_tokens(), seen)
    check(outcomes, seen)
    assert 1 <= Jwks.served <= 3  # fetched once, then again only for a key id it lacked


def test_a_jwks_file_and_the_token_option_side_by_side(config, tmp_path, monkeypatch):
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps(jwks(OTHER_KEY, KEY)))
    made = oauth_config(config, jwks_file=str(keys))
    monkeypatch.setenv("BOB_TOKEN", "token-of-bob-0123456789")
    made["mcp"]["auth"]["tokens"] = [{"sender": "bob", "env": "BOB_TOKEN"}]
    seen = Seen()
    tokens = {**the_tokens(), "static": "token-of-bob-0123456789"}
    outcomes = run_proxy(made, free_port(), tokens, seen)
    check(outcomes, seen)
    assert outcomes["static"] != 401


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"algorithms": ["none"]}, "'none' and HMAC"),
        ({"algorithms": ["HS256"]}, "'none' and HMAC"),
        ({"jwks_url": "http://127.0.0.1:1/jwks.json"}, "exactly one of"),
        ({"jwks_file": None}, "exactly one of"),
    ],
)
def test_the_oauth_table_refuses_what_would_let_a_token_be_forged(table, says):
    base = {"issuer": ISSUER, "audience": "https://x.test/mcp", "jwks_file": "keys.json"}
    with pytest.raises(ValidationError, match=says):
        OAuthTable.model_validate({**base, **table})


class Introspection(BaseHTTPRequestHandler):
    asked = 0
    active: dict[str, dict[str, Any]] = {}

    def do_POST(self) -> None:
        type(self).asked += 1
        length = int(self.headers.get("Content-Length", "0"))
        form = dict(
            pair.split("=", 1) for pair in self.rfile.read(length).decode().split("&") if pair
        )
        good = (
            self.headers.get("Authorization")
            == "Basic " + base64.b64encode(b"the-proxy:s3cret").decode()
        )
        claims = self.active.get(form.get("token", "")) if good else None
        body = json.dumps({"active": True, **claims} if claims else {"active": False}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None


def test_introspection_checks_the_claims_and_is_asked_once_per_token(monkeypatch):
    from toolhooks_mcp._oauth import OAuthVerifier

    server = ThreadingHTTPServer(("127.0.0.1", 0), Introspection)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    now = int(time.time())
    good = {"iss": ISSUER, "aud": ["https://x.test/mcp"], "sub": "eve", "exp": now + 300}
    Introspection.asked = 0
    Introspection.active = {
        "opaque-good": good,
        "opaque-expired": {**good, "exp": now - 600},
        "opaque-foreign": {**good, "aud": "https://other.test"},
        "opaque-early": {**good, "nbf": now + 600},
    }
    monkeypatch.setenv("PROXY_SECRET", "s3cret")
    table = OAuthTable.model_validate(
        {
            "issuer": ISSUER,
            "audience": "https://x.test/mcp",
            "introspection_url": f"http://127.0.0.1:{server.server_address[1]}/introspect",
            "client_id": "the-proxy",
            "client_secret_env": "PROXY_SECRET",
        }
    )
    verifier = OAuthVerifier(table, None)

    async def main() -> list[Any]:
        return [await verifier.verify(token) for token in
                ["opaque-good"] * 5 + ["opaque-expired", "opaque-foreign", "opaque-early", "nope"]]  # fmt: skip

    try:
        found = anyio.run(main)
    finally:
        server.shutdown()
        server.server_close()
    assert [access is not None for access in found] == [True] * 5 + [False] * 4
    assert found[0].sender.id == "eve"
    assert Introspection.asked == 5  # the good token once, each bad one once


def test_a_broken_jwks_file_stops_the_start_naming_it(config, tmp_path):
    from toolhooks import ConfigError
    from toolhooks_mcp._http import http_app

    keys = tmp_path / "jwks.json"
    keys.write_text('{"keys": "none"}')
    made = oauth_config(config, jwks_file=str(keys))
    proxy = Proxy(made, plugins=[Seen()], local={"files": files()})
    with pytest.raises(ConfigError, match=r"jwks\.json' is not a JWKS"):
        http_app(proxy, "127.0.0.1", free_port())
