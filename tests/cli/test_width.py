"""Issue #10 item 21: every table fits the terminal; piped or ``--wide`` output is whole; colour
for blocked, denied and critical only on a colour terminal, ``NO_COLOR`` honoured."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from toolhooks import ApprovalRequest, PendingApproval, SQLiteStore, ToolCall
from toolhooks.stores._contract import stored_from_pending

from .tty import on_tty

SGR = re.compile("\x1b\\[[0-9;]*m")
RED = "\x1b[31m"
LONG_TITLE = "Deploy " + " ".join(f"service-{n}" for n in range(6))
LONG_DETAIL = "needs a human: " + "x" * 300
LONG_TOOL = "mcp__" + "very_long_server_name__" * 4 + "tool"


def visible(line: str) -> int:
    return len(SGR.sub("", line))


def queue_with_approvals(cli) -> None:
    cli.config('[approvals]\nroute = "queue"\ndb = "approvals.db"\n')
    with SQLiteStore(cli.cwd / "approvals.db") as store:
        for number, severity in enumerate(("critical", "warning", "info")):
            request = ApprovalRequest(
                title=f"blocked {LONG_TITLE}", description="d", severity=severity, timeout_s=600
            )
            call = ToolCall(name=LONG_TOOL, params={"n": number}, session_id="s1")
            pending = PendingApproval(
                id=f"appr_{number}{'a' * 31}",
                short_id=f"{number}{'a' * 7}",
                call=call,
                plugin="gate",
                request=request,
                digest="d" * 64,
                expires_at=time.time() + 600,
            )
            store.add(stored_from_pending(pending, expires_at=pending.expires_at))


def transcript(cli) -> Path:
    cli.config('[tools]\ndeny = ["exec"]\n')
    rows = [
        {"name": "read", "params": {"path": "a"}, "result": "x"},
        {"name": "exec", "params": {"command": "ls " + "y" * 300}, "result": "x"},
        {"name": LONG_TOOL, "params": {}, "result": LONG_DETAIL},
    ]
    return cli.jsonl("t.jsonl", rows)


def event_log(cli) -> None:
    cli.jsonl(
        ".toolhooks/events.jsonl",
        [
            {
                "ts": 1.0,
                "event": "tool.proposed",
                "call_id": "call_" + "c" * 90,
                "trace_id": "t" * 64,
                "session_id": "s" * 40,
                "tool": LONG_TOOL,
                "params": {"cmd": "z" * 400},
            },
            {
                "ts": 2.0,
                "event": "tool.blocked",
                "call_id": "call_" + "c" * 90,
                "trace_id": "t" * 64,
                "tool": LONG_TOOL,
                "plugin": "a_plugin_with_a_long_name",
                "by": "policy",
                "reason": LONG_DETAIL,
            },
        ],
    )


def setup(cli, name: str) -> list[str]:
    """The command line of each table the CLI prints, with data too wide for 80 columns."""
    if name == "demo":
        return ["demo", "--dir", str(cli.cwd / "demo")]
    if name.startswith("approvals"):
        queue_with_approvals(cli)
        return name.split()
    if name == "replay":
        return ["replay", str(transcript(cli))]
    if name == "logs":
        event_log(cli)
        return ["logs"]
    if name.startswith("explain"):
        cli.config(f'[tools]\ndeny = ["exec"]\nalso_allow = ["{LONG_TOOL}"]\n')
    return name.split()


COMMANDS = [
    "demo",
    "plugins",
    "plugins --all",
    "explain",
    "explain --tool exec",
    "doctor",
    "logs",
    "replay",
    "approvals list",
    "approvals list --all",
]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_table_fits_80_columns_on_a_terminal(cli, name):
    args = setup(cli, name)
    result = cli(*args, tty=True, env={"COLUMNS": "80"})
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert len(lines) >= 3
    too_wide = [line for line in lines if visible(line) > 80]
    assert not too_wide, "\n".join(too_wide)


@pytest.mark.parametrize("name", ["replay", "approvals list", "logs", "explain"])
def test_piped_output_is_whole(cli, name):
    args = setup(cli, name)
    result = cli(*args, env={"COLUMNS": "80"})
    assert result.code == 0, result.err
    whole = {
        "replay": LONG_TOOL,
        "approvals list": LONG_TITLE,
        "logs": LONG_DETAIL,
        "explain": LONG_TOOL,
    }[name]
    assert whole in result.out
    assert "\x1b" not in result.out and "..." not in result.out
    assert max(map(len, result.out.splitlines())) > 80


def test_wide_on_a_terminal_is_whole_and_shows_every_column(cli):
    queue_with_approvals(cli)
    narrow = cli("approvals", "list", tty=True, env={"COLUMNS": "80"})
    assert LONG_TITLE not in narrow.out and "..." in narrow.out
    for args in (["approvals", "list", "--wide"], ["--wide", "approvals", "list"]):
        wide = cli(*args, tty=True, env={"COLUMNS": "80"})
        assert wide.code == 0, wide.err
        assert LONG_TITLE in wide.out and LONG_TOOL in wide.out
    plugins = cli("plugins", tty=True, env={"COLUMNS": "80"}).out.splitlines()
    header = next(line for line in plugins if line.startswith("NAME"))
    assert header.split() == ["NAME", "PRIORITY", "HOOKS", "TOOLS", "MODE", "ENABLED"]
    start = next(n for n, line in enumerate(plugins) if line.startswith("(not shown"))
    hint = " ".join(plugins[start:])
    assert "(not shown to fit 80 columns: VERSION, DISTRIBUTION, SOURCE;" in hint
    everything = cli("plugins", "--wide", tty=True, env={"COLUMNS": "80"}).out
    header = next(line for line in everything.splitlines() if line.startswith("NAME"))
    assert header.split()[:4] == ["NAME", "VERSION", "DISTRIBUTION", "SOURCE"]
    assert "not shown" not in everything


def test_the_widest_free_text_column_gives_way_first(cli):
    queue_with_approvals(cli)
    out = cli("approvals", "list", tty=True, env={"COLUMNS": "100", "NO_COLOR": "1"}).out
    header, _, *rows = out.splitlines()
    assert header.split()[:3] == ["ID", "STATE", "SEVERITY"]
    assert header.split()[-2:] == ["TITLE", "WHEN"]
    rows = [row for row in rows if row.strip() and not row.startswith(("Decide", "(not shown"))]
    for number, row in enumerate(sorted(rows)):
        assert row.startswith(f"{number}aaaaaaa ")  # the ids people type are never cut
        assert "expires in" in row  # nor the column after the cut one
        assert "blocked Deploy" in row and "..." in row


def test_colour_marks_blocked_denied_and_critical_on_a_terminal_only(cli):
    path = transcript(cli)
    painted = cli("replay", str(path), tty=True, env={"COLUMNS": "100"}).out
    assert f"{RED}blocked\x1b[0m" in painted
    assert "\x1b[31mok" not in painted
    assert "\x1b" not in cli("replay", str(path), env={"COLUMNS": "100"}).out  # piped
    plain = cli("replay", str(path), tty=True, env={"COLUMNS": "100", "NO_COLOR": "1"}).out
    assert "blocked" in plain and "\x1b" not in plain
    queue_with_approvals(cli)
    listing = cli("approvals", "list", tty=True, env={"COLUMNS": "200"}).out
    assert f"{RED}critical\x1b[0m" in listing
    assert "\x1b[33mwarning\x1b[0m" in listing
    # A title that says "blocked" is caller text, not a status: never painted.
    assert f"{RED}blocked Deploy" not in listing and "blocked Deploy" in listing


def test_caller_text_cannot_smuggle_colour_or_escapes(cli):
    marker = "\ue000"  # the private-use character the CLI uses as its own colour marker
    cli.jsonl("t.jsonl", [{"name": f"x{marker}\x1b[2Jy", "params": {}, "result": "r"}])
    out = cli("replay", "t.jsonl", tty=True, env={"COLUMNS": "80"}).out
    assert "\\x1b[2J" in out or "\\u001b[2J" in out
    assert "\x1b[2J" not in out and marker not in out
    assert "x\x1b[31m" not in out


def test_a_real_terminal_gets_a_fitted_coloured_table(cli):
    cli.config('[tools]\ndeny = ["exec"]\n')
    out = on_tty(cli, "explain", columns=60)
    rows = out.splitlines()
    assert rows and all(visible(line) <= 60 for line in rows), out
    assert f"{RED}deny\x1b[0m" in out
    plain = on_tty(cli, "explain", columns=60, env={"NO_COLOR": "1"})
    assert "deny" in plain and "\x1b" not in plain


def test_json_is_never_fitted(cli):
    queue_with_approvals(cli)
    rows = json.loads(cli("approvals", "list", "--json", tty=True, env={"COLUMNS": "40"}).out)
    assert rows[0]["title"] == f"blocked {LONG_TITLE}"
