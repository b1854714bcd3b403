"""Scripted fake model APIs on 127.0.0.1 for the real coding-agent CLIs.

One server speaks the three wire formats the agents use: Anthropic Messages (Claude Code),
OpenAI Responses (Codex CLI) and Gemini generateContent (Gemini CLI), each streamed as
server-sent events. A script is a list of turns; every request that offers tools takes the next
turn (a tool call or a final text), so the test decides exactly what the "model" does and can
read every request the agent sent back (the tool results the model would have seen).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolTurn:
    """The model asks for one shell command."""

    command: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TextTurn:
    """The model answers with text and ends its turn."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchTurn:
    """The model asks Claude Code's WebFetch for a page (Anthropic Messages only)."""

    url: str
    prompt: str


Turn = ToolTurn | TextTurn | FetchTurn

_PAGE_START = "Web page content:\n---\n"
_PAGE_END = "\n---\n"


@dataclass(slots=True, kw_only=True)
class Recorded:
    path: str
    body: dict[str, Any]


@dataclass(slots=True)
class FakeModel:
    """The script and everything the agent sent; shared with the handler threads."""

    script: list[Turn]
    requests: list[Recorded] = field(default_factory=list)
    served: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def next_turn(self) -> Turn:
        with self.lock:
            if self.served < len(self.script):
                turn = self.script[self.served]
                self.served += 1
                return turn
            return TextTurn(text="done")

    def agent_requests(self) -> list[Recorded]:
        """The requests that offered tools: the agent's real conversation turns."""
        return [r for r in self.requests if _offers_tools(r.body)]

    def side_answer(self, body: dict[str, Any]) -> str:
        """The answer to a request that offers no tools. Claude Code's WebFetch asks the model
        about the page it fetched in such a request, and its answer is the tool's result: this
        model quotes the page whole, hidden characters and all (what a model that copies the
        page does), so the page reaches the hooks. Any other side request gets "ok"."""
        for message in body.get("messages") or []:
            content = message.get("content")
            texts = [content] if isinstance(content, str) else [
                part.get("text", "") for part in content or [] if isinstance(part, dict)
            ]  # fmt: skip
            for text in texts:
                start = text.find(_PAGE_START)
                if start >= 0:
                    page = text[start + len(_PAGE_START) :]
                    return page.split(_PAGE_END, 1)[0]
        return "ok"

    def transcript(self) -> str:
        """Every request body as one string, to look for what the model was shown."""
        return "\n".join(json.dumps(r.body) for r in self.agent_requests())


def _offers_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(chunks).encode()


def anthropic_events(turn: Turn, call_id: str, model: str) -> bytes:
    usage = {"input_tokens": 10, "output_tokens": 5}
    start = {
        "type": "message_start",
        "message": {
            "id": f"msg_{call_id}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
    }
    events: list[tuple[str | None, dict[str, Any]]] = [("message_start", start)]
    if isinstance(turn, ToolTurn | FetchTurn):
        name, tool_input = (
            ("Bash", {"command": turn.command})
            if isinstance(turn, ToolTurn)
            else ("WebFetch", {"url": turn.url, "prompt": turn.prompt})
        )
        block = {"type": "tool_use", "id": f"toolu_{call_id}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": turn.text}
        stop = "end_turn"
    events += [
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def _openai_shell_call(tools: list[dict[str, Any]], command: str) -> tuple[str, dict[str, Any]]:
    """Codex names its shell tool differently across releases: use the one it offers."""
    names = {str(t.get("name")) for t in tools}
    if "exec_command" in names:
        return "exec_command", {"cmd": command}
    return "shell", {"command": ["bash", "-lc", command]}


def openai_responses_events(
    turn: Turn, call_id: str, model: str, tools: list[dict[str, Any]]
) -> bytes:
    response = {"id": f"resp_{call_id}", "object": "response", "model": model, "output": []}
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": response})
    ]
    if isinstance(turn, FetchTurn):
        raise TypeError("a FetchTurn is Claude Code's WebFetch: Anthropic Messages only")
    if isinstance(turn, ToolTurn):
        name, arguments = _openai_shell_call(tools, turn.command)
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": f"call_{call_id}",
            "name": name,
            "arguments": json.dumps(arguments),
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{call_id}",
            "role": "assistant",
            "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
        }
    events.append(
        ("response.output_item.done", {"type": "response.output_item.done", "item": item})
    )
    done = dict(response, output=[item], usage=_openai_usage())
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return _sse(events)


def _openai_usage() -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }


def gemini_chunk(turn: Turn, call_id: str, model: str) -> dict[str, Any]:
    if isinstance(turn, FetchTurn):
        raise TypeError("a FetchTurn is Claude Code's WebFetch: Anthropic Messages only")
    if isinstance(turn, ToolTurn):
        part: dict[str, Any] = {
            "functionCall": {"name": "run_shell_command", "args": {"command": turn.command}}
        }
    else:
        part = {"text": turn.text}
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
        "responseId": f"r{call_id}",
    }
    return chunk


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        self._json(200, {"data": [], "models": []})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode(errors="replace")}
        fake = self.server.fake
        with fake.lock:
            fake.requests.append(Recorded(path=self.path, body=body))
        call_id = str(next(fake.ids))
        model = str(body.get("model") or "fake-model")
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            self._json(200, {"input_tokens": 10})
            return
        if path.endswith("/messages"):
            turn = (
                fake.next_turn() if _offers_tools(body) else TextTurn(text=fake.side_answer(body))
            )
            self._stream(anthropic_events(turn, call_id, model))
        elif path.endswith("/responses"):
            turn = fake.next_turn() if _offers_tools(body) else TextTurn(text="ok")
            self._stream(openai_responses_events(turn, call_id, model, body.get("tools") or []))
        elif ":streamGenerateContent" in path:
            offers = any(t.get("functionDeclarations") for t in body.get("tools") or [])
            turn = fake.next_turn() if offers else TextTurn(text="ok")
            self._stream(_sse([(None, gemini_chunk(turn, call_id, model))]))
        elif ":generateContent" in path:
            # Side requests (Gemini CLI's model router) take JSON and no tools: answer plainly.
            self._json(200, gemini_chunk(TextTurn(text="{}"), call_id, model))
        elif ":countTokens" in path:
            self._json(200, {"totalTokens": 10})
        else:
            self._json(200, {})

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeModel


class FakeModelServer:
    """Serve a script on 127.0.0.1 (a free port) until closed."""

    def __init__(self, script: list[Turn]) -> None:
        self.fake = FakeModel(script=script)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self.fake
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
