"""The desk's calls page shows the plugin lock's state (issue #24), and a ``plugin.unlocked``
event in the log, which belongs to no call, does not become a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolhooks.config._settings import load_config
from toolhooks.loading import _files
from toolhooks.loading._lock import current_entries
from toolhooks.loading._lock_file import render
from toolhooks.stores._memory import MemoryStore

from .conftest import SECRETS, Api


@pytest.fixture
def desk_for(tmp_path: Path):
    from fastapi.testclient import TestClient
    from toolhooks.web import CallLog, Desk, create_app
    from toolhooks.web._auth import Tokens, _digest

    clients = []

    def make(config: Path, log: Path) -> Api:
        desk = Desk(MemoryStore(), CallLog(log), load_config(config))
        app = create_app(desk, Tokens({n: _digest(s) for n, s in SECRETS.items()}))
        client = TestClient(app, base_url="http://127.0.0.1")
        clients.append(client)
        return Api(client.__enter__(), "alice")

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def test_the_calls_page_shows_the_lock_state(desk_for, tmp_path):
    config = tmp_path / "toolhooks.toml"
    config.write_text("[plugins]\n")
    log = tmp_path / "events.jsonl"
    unlocked = {"ts": 1.0, "event": "plugin.unlocked", "trace_id": "", "call_id": "",
                "session_id": None, "tool": None, "plugin": "second", "reason": "not in the lock"}  # fmt: skip
    log.write_text(json.dumps(unlocked) + "\n")
    api = desk_for(config, log)
    page = api.get("/calls").text
    assert "plugins: no plugin lock: every installed plugin loads" in page
    assert api.get("/api/calls").json() == []  # the load-time event is not a call

    lock = tmp_path / "toolhooks.lock"
    _files.forget()
    lock.write_text(render(current_entries(load_config(config)).values(), config.name))
    page = api.get("/calls").text
    assert "lock-ok" in page and f"{lock} matches:" in page

    lock.write_text(lock.read_text().replace("[plugins.policy]", "[plugins.policy_old]"))
    page = api.get("/calls").text
    assert "lock-differs" in page and "plugin &#39;policy&#39;" in page
    assert "is not in the lock" in page and "would not load" in page
