"""Issue #10 item 4: no caller-controlled text reaches the terminal with a control character or
an escape sequence in it, in any command, in human or JSON output."""

from __future__ import annotations

import json
import re

import pytest

# An OSC that retitles the window, a screen clear, a cursor move, BEL, a C1 CSI and a
# right-to-left override: each one a way for text to lie to the person reading it.
EVIL = "\x1b]0;owned\x07\x1b[2J\x1b[1;1H\x9b31m\u202eevil"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_safe(text: str) -> None:
    found = UNSAFE.findall(text)
    assert not found, f"control characters reached the terminal: {found!r}"


def event(name: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "ts": 1_700_000_000.0,
        "event": name,
        "trace_id": f"trace{EVIL}",
        "call_id": f"call{EVIL}\nFAKE == heading",
        "session_id": f"s{EVIL}",
        "tool": f"exec{EVIL}",
        "plugin": f"plug{EVIL}",
    }
    return base | fields


def test_logs_escapes_ids_tools_params_and_reasons(cli):
    log = cli.jsonl(
        "events.jsonl",
        [
            event("tool.proposed", params={"cmd": f"ls{EVIL}"}),
            event("tool.blocked", by="policy", reason=f"no{EVIL}"),
            event(f"custom{EVIL}", detail=f"x{EVIL}"),
            event("tool.injected", status="blocked", chars=3),
        ],
    )
    human = cli("logs", "--file", str(log))
    assert human.code == 0, human.err
    assert_safe(human.out + human.err)
    assert "\\u001b]0;owned\\u0007" in human.out  # shown, visibly, not interpreted
    assert not [line for line in human.out.splitlines() if line.startswith("FAKE")]  # no fake line
    machine = cli("logs", "--file", str(log), "--json")
    assert machine.code == 0, machine.err
    assert_safe(machine.out + machine.err)
    rows = machine.json_lines()
    assert rows[0]["call_id"] == f"call{EVIL}\nFAKE == heading"  # --json is still exact
    assert rows[0]["params"] == {"cmd": f"ls{EVIL}"}


def test_explain_escapes_tool_sender_and_errors(cli):
    cli.config('[tools]\ndeny = ["exec"]\n')
    for args in (
        ("explain", "--tool", f"exec{EVIL}"),
        ("explain", "--sender", f"id:{EVIL}", "--json"),
        ("explain", "--agent", f"a{EVIL}"),
    ):
        result = cli(*args)
        assert result.code in (0, 1, 2), result.err
        assert_safe(result.out + result.err)
    bad = cli.config(f'[tools]\ndeny = ["{EVIL.encode("unicode_escape").decode()}"]\n')
    result = cli("--config", str(bad), "explain")
    assert result.code == 1 and "Traceback" not in result.err
    assert_safe(result.out + result.err)


PLUGIN = f'''
from toolhooks import hookimpl

class Evil:
    """A plugin whose words are hostile: {EVIL.encode("unicode_escape").decode()}"""
    name = "evil"
    @hookimpl
    def on_event(self, event):
        pass
'''

BROKEN = f'raise ImportError("cannot load{EVIL.encode("unicode_escape").decode()}")\n'


@pytest.mark.parametrize("command", [("plugins",), ("plugins", "--all"), ("doctor",)])
def test_plugins_and_doctor_escape_plugin_text(cli, command):
    cli.install("evil-dist", {"evil_mod": PLUGIN}, {"evil": "evil_mod:Evil"})
    cli.install("broken-dist", {"broken_mod": BROKEN}, {"broken": "broken_mod:P"})
    result = cli(*command)
    assert "Traceback" not in result.err
    assert "cannot load" in result.out + result.err
    assert_safe(result.out + result.err)
    as_json = cli(*command, "--json")
    assert_safe(as_json.out + as_json.err)
    assert "cannot load" in as_json.out + as_json.err


def test_replay_escapes_recorded_calls(cli):
    cli.config('[tools]\ndeny = ["exec"]\n')
    path = cli.jsonl(
        "t.jsonl",
        [
            {"name": f"exec{EVIL}", "params": {"c": EVIL}, "result": EVIL},
            {"name": "exec", "params": {"command": EVIL}, "result": EVIL},
            {"name": "read", "params": {"path": EVIL}, "error": f"broke{EVIL}"},
        ],
    )
    for extra in ((), ("--json",)):
        result = cli("replay", str(path), *extra)
        assert "Traceback" not in result.err
        assert_safe(result.out + result.err)
    calls = json.loads(cli("replay", str(path), "--json").out)["calls"]
    assert calls[1]["params"] == {"command": EVIL}  # --json is still exact


def test_argument_errors_escape_what_was_typed(cli):
    result = cli("logs", f"--{EVIL}")
    assert result.code == 2
    assert_safe(result.out + result.err)
