"""Local stand-ins for what a team's notifications reach: a webhook receiver and the few Slack
Web API methods toolhooks calls (``chat.postMessage``, ``chat.update``), each a real HTTP server
on 127.0.0.1; and a Slack button click signed exactly as Slack signs it."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode


class _Server:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                status, answer = outer.answer(self.path, dict(self.headers.items()), body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        raise NotImplementedError

    def record(self, entry: dict[str, Any]) -> None:
        with self.changed:
            self.received.append(entry)
            self.changed.notify_all()

    def wait_for(self, count: int, deadline_s: float = 30.0) -> list[dict[str, Any]]:
        """The first ``count`` requests, once they came (fails after a generous deadline)."""
        end = time.monotonic() + deadline_s
        with self.changed:
            while len(self.received) < count:
                remaining = end - time.monotonic()
                assert remaining > 0, f"only {len(self.received)} of {count} requests came"
                self.changed.wait(remaining)
            return list(self.received[:count])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhookReceiver(_Server):
    """Answers 500 to the first ``fail_first`` POSTs; holds each answer until ``release`` is set
    when ``hold`` is given (a receiver that hangs)."""

    def __init__(self, fail_first: int = 0, hold: threading.Event | None = None) -> None:
        self.fail_first = fail_first
        self.hold = hold
        self.attempts = 0
        super().__init__()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        if self.hold is not None:
            self.hold.wait(60)
        self.attempts += 1
        if self.attempts <= self.fail_first:
            return 500, {"error": "down for a moment"}
        self.record({"headers": {k.lower(): v for k, v in headers.items()}, "body": body})
        return 200, {"ok": True}


class SlackApi(_Server):
    """``chat.postMessage`` and ``chat.update`` as Slack answers them (the fields toolhooks reads)."""

    CHANNEL = "C0PAYMENTS"

    def __init__(self) -> None:
        self.sent = 0
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        method = path.rsplit("/", 1)[-1]
        sent = json.loads(body or b"{}")
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        self.record({"method": method, "args": sent, "authorization": auth})
        if method == "chat.postMessage":
            self.sent += 1
            return 200, {"ok": True, "channel": self.CHANNEL, "ts": f"1700000000.{self.sent:06d}"}
        if method == "chat.update":
            return 200, {"ok": True, "channel": sent.get("channel"), "ts": sent.get("ts")}
        return 200, {"ok": False, "error": "unknown_method"}

    def calls(self, method: str) -> list[dict[str, Any]]:
        with self.changed:
            return [r for r in self.received if r["method"] == method]


def slack_click(
    secret: str,
    user: str,
    button: dict[str, Any],
    *,
    timestamp: int | None = None,
) -> tuple[dict[str, str], bytes]:
    """The headers and body Slack sends when ``user`` clicks ``button`` (an element of the
    message's actions block), signed with the app's signing secret."""
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower()},
        "actions": [{"action_id": button["action_id"], "value": button["value"], "type": "button"}],
        "container": {"type": "message", "channel_id": SlackApi.CHANNEL},
    }
    body = urlencode({"payload": json.dumps(payload)}).encode()
    sent = str(int(time.time()) if timestamp is None else timestamp)
    base = b"v0:" + sent.encode() + b":" + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    headers = {
        "x-slack-request-timestamp": sent,
        "x-slack-signature": signature,
        "content-type": "application/x-www-form-urlencoded",
    }
    return headers, body
