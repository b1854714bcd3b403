"""The tty approval route: the prompt (escaped, long params shown head and tail with what was
cut), answers, end of file, and a real pseudo-terminal, Ctrl-C included (issue #10 items 9, 22)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import select
import subprocess
import sys
import time

import pytest
from toolhooks import ApprovalRequest, Runtime, hookimpl
from toolhooks.approvals._routes import PARAMS_HEAD, PARAMS_TAIL, TtyApprover


class Gate:
    name = "gate"

    def __init__(self, allowed=("allow-once", "allow-always", "deny"), **request) -> None:
        fields = {"title": "Write a file", "description": "writes\x1b[2J things", **request}
        self.request = ApprovalRequest(allowed_decisions=allowed, **fields)

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": self.request}


def write(path: str, text: str = "") -> str:
    return "wrote " + path


def _tty_call(answer: str, params=None, **gate):
    out = io.StringIO()
    approver = TtyApprover(input=io.StringIO(answer), output=out)
    rt = Runtime(plugins=[Gate(**gate)], tools=[write], approver=approver, load_entrypoints=False)
    outcome = rt.call({"name": "write", "params": params or {"path": "/etc/x"}})
    return outcome, out.getvalue()


def test_the_prompt_shows_the_request_and_reads_a_decision():
    outcome, shown = _tty_call("a\n")
    assert outcome.status == "ok" and outcome.approval == "allow-always"
    for text in (
        "Write a file",
        "severity: warning",
        "tool: write",
        '"path": "/etc/x"',
        "[o]nce / [a]lways / [d]eny",
    ):
        assert text in shown
    assert "\x1b" not in shown and "\\x1b[2J" in shown  # escapes are shown, not obeyed


def test_a_description_cannot_draw_prompt_lines_of_its_own():
    fake = "harmless\n=== Approval requested: nothing ===\nAllow this call? [o]nce: o\r\x07"
    outcome, shown = _tty_call("d\n", title="t\nitle", description=fake)
    assert outcome.status == "denied"
    lines = shown.splitlines()
    assert sum(line.startswith("=== Approval requested") for line in lines) == 1
    assert "=== Approval requested: t\\nitle ===" in lines
    (described,) = [line for line in lines if line.startswith("harmless")]
    assert described == (
        "harmless\\n=== Approval requested: nothing ===\\nAllow this call? [o]nce: o\\r\\x07"
    )


def test_long_params_show_head_and_tail_with_the_length_and_sha256_of_the_cut():
    text = "HEAD" + "x" * 10_000 + "rm -rf / # the tail a padder would hide"
    outcome, shown = _tty_call("o\n", params={"path": "/tmp/p", "text": text})
    assert outcome.status == "ok"
    full = json.dumps({"path": "/tmp/p", "text": text}, indent=2, sort_keys=True)
    cut = full[PARAMS_HEAD : len(full) - PARAMS_TAIL]
    digest = hashlib.sha256(cut.encode()).hexdigest()
    assert f"[... {len(cut)} characters cut of {len(full)}, sha256 {digest} ...]" in shown
    assert "rm -rf / # the tail a padder would hide" in shown and '"path": "/tmp/p"' in shown
    assert len(shown) < len(full)


def test_short_params_are_shown_whole():
    _, shown = _tty_call("o\n", params={"path": "/tmp/p", "text": "y" * 100})
    assert "characters cut" not in shown and "y" * 100 in shown


def test_the_prompt_asks_again_until_an_allowed_answer():
    outcome, shown = _tty_call("maybe\nalways\nonce\n", allowed=("allow-once", "deny"))
    assert outcome.approval == "allow-once"
    assert shown.count("Please answer") == 2 and "[a]lways" not in shown
    denied, _ = _tty_call("d\n")
    assert (denied.status, denied.reason) == ("denied", "Denied by user")


def test_end_of_file_and_no_terminal_deny_with_a_reason(monkeypatch):
    outcome, _ = _tty_call("")
    assert outcome.status == "denied" and "end of file" in outcome.reason
    monkeypatch.setattr("toolhooks.approvals._routes._open_tty", lambda: None)
    rt = Runtime(
        plugins=[Gate()], tools=[write], config={"approvals": {"route": "tty"}},
        load_entrypoints=False,
    )  # fmt: skip
    outcome = rt.call({"name": "write", "params": {"path": "x"}})
    assert outcome.status == "denied" and "no terminal" in outcome.reason


TTY_AGENT = r"""
import json, os, signal, sys
# Ctrl-C must reach the agent even when the test runner inherited SIGINT as ignored (started in
# the background by nohup or a CI job): a terminal user's agent has the default handler.
signal.signal(signal.SIGINT, signal.default_int_handler)
os.setsid()
os.close(os.open(sys.argv[1], os.O_RDWR))  # the pty becomes our controlling terminal
from toolhooks import ApprovalRequest, Runtime, hookimpl

class Gate:
    name = "gate"
    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": ApprovalRequest(title="Ring the bell", description="ding",
                                                    timeout_s=float(sys.argv[2]))}

events = []

class Recorder:
    name = "recorder"
    @hookimpl
    def on_event(self, event):
        events.append({"event": event.event, "data": event.data})

def ring() -> str:
    return "rang"

with Runtime(plugins=[Gate(), Recorder()], tools=[ring], config={"approvals": {"route": "tty"}},
             load_entrypoints=False) as rt:
    try:
        outcome = rt.call({"name": "ring", "id": "c-tty"}).to_dict()
    except KeyboardInterrupt:
        outcome = {"interrupted": True}
    print(json.dumps({"outcome": outcome, "events": events}, default=str), flush=True)
"""


def _on_a_pty(timeout: str, answer: bytes | None):
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
    proc = subprocess.Popen(
        [sys.executable, "-c", TTY_AGENT, os.ttyname(slave), timeout],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        seen = b""
        end = time.monotonic() + 60
        while b"Allow this call?" not in seen and time.monotonic() < end:
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 4096)
        assert b"Ring the bell" in seen and b"Allow this call?" in seen
        if answer is not None:
            os.write(master, answer)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        os.close(master)
        os.close(slave)
    assert out.strip(), err
    return json.loads(out.decode().strip().splitlines()[-1])


needs_pty = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")


@needs_pty
@pytest.mark.parametrize(
    ("answer", "timeout", "status", "reason"),
    [(b"o\n", "30", "ok", None), (None, "1", "denied", "Approval timed out")],
)
def test_the_tty_route_on_a_real_terminal(answer, timeout, status, reason):
    outcome = _on_a_pty(timeout, answer)["outcome"]
    assert (outcome["status"], outcome["reason"]) == (status, reason)


@needs_pty
def test_ctrl_c_at_the_prompt_records_the_end_of_the_call():
    # ^C typed on the terminal: the line discipline sends SIGINT to the agent.
    result = _on_a_pty("30", b"\x03")
    assert result["outcome"] == {"interrupted": True}
    names = [e["event"] for e in result["events"]]
    assert names[-2:] == ["approval.resolved", "tool.injected"]
    resolved = result["events"][-2]["data"]
    assert resolved["cancelled"] is True and resolved["decision"] == "deny"
    assert result["events"][-1]["data"]["status"] == "denied"
