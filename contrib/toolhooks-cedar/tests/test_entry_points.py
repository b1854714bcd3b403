"""Through every entry point: a Claude Code hook (a real ``toolhooks hook claude-code`` process),
the MCP proxy (a real upstream server, the SDK's client), ``toolhooks test`` case files,
``toolhooks whatif``, ``toolhooks explain --call`` and ``toolhooks cedar schema`` / ``check``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolhooks.cli import main

NO_RM = """\
@id("no-recursive-rm")
@reason("Recursive deletes are not allowed")
// match: "rm -rf build"
// not_match: "rm -f notes.txt"
forbid (principal, action == Action::"exec", resource)
when { context.exec.flags.containsAny(["rm -r", "rm -R", "rm --recursive"]) };
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_claude_code_bash_call_is_denied_end_to_end(project: Any) -> None:
    project.policy(NO_RM)
    project.config()
    event = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "sudo rm -rf /srv/app"},
        "tool_use_id": "toolu_1",
        "cwd": str(project.root),
        "permission_mode": "default",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}

    def hook(command: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "toolhooks", "hook", "claude-code", "--no-daemon"],
            input=json.dumps({**event, "tool_input": {"command": command}}).encode(),
            cwd=project.root,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert b"Traceback" not in done.stderr, done.stderr
        answer: dict[str, Any] = json.loads(done.stdout or b"{}").get("hookSpecificOutput", {})
        return answer

    denied = hook("sudo rm -rf /srv/app")
    assert denied["permissionDecision"] == "deny"
    assert "no-recursive-rm" in denied["permissionDecisionReason"]
    assert hook("ls -la").get("permissionDecision") != "deny"


def test_the_mcp_proxy_applies_cedar_policies(tmp_path: Path) -> None:
    anyio = pytest.importorskip("anyio")
    mcp = pytest.importorskip("mcp")
    toolhooks_mcp = pytest.importorskip("toolhooks_mcp")
    upstream = (
        Path(__file__).resolve().parents[2] / "toolhooks-mcp" / "tests" / "servers" / "upstream.py"
    )
    log = tmp_path / "upstream.jsonl"
    (tmp_path / "p.cedar").write_text(
        '@id("no-env-writes")\n@reason("Secrets stay out of reach")\n'
        'forbid (principal, action == Action::"files__write_file", resource)\n'
        'when { context.input has path && context.input.path like "*.env" };\n'
    )
    (tmp_path / "toolhooks.toml").write_text(
        f'[plugins]\nonly = ["cedar"]\n[plugins.cedar]\npolicies = ["p.cedar"]\nschema = "none"\n'
        f"[mcp]\nhealth_interval_s = 0.5\nrestart_backoff_s = 0.1\n"
        f"[mcp.servers.files]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(upstream))}]\nenv = {{ UPSTREAM_LOG = {json.dumps(str(log))} }}\n"
    )

    async def go() -> tuple[Any, Any]:
        proxy = toolhooks_mcp.Proxy(str(tmp_path / "toolhooks.toml"))
        async with proxy.running(), mcp.Client(proxy.server, mode="legacy", cache=None) as client:
            secret = await client.call_tool("files__write_file", {"path": ".env", "content": "x"})
            fine = await client.call_tool(
                "files__write_file", {"path": "notes.txt", "content": "x"}
            )
            return secret, fine

    secret, fine = anyio.run(go)
    assert secret.is_error and secret.meta[toolhooks_mcp.META_KEY]["blocked_by"] == "cedar"
    assert "no-env-writes" in secret.content[0].text
    assert not fine.is_error
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["arguments"]["path"] for r in received] == ["notes.txt"]


def test_case_files_run_cedar_decisions(project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    project.policy(NO_RM)
    project.config()
    (project.root / "cedar.cases.toml").write_text(
        'config = "toolhooks.toml"\n\n'
        '[[case]]\nname = "a recursive rm is blocked by cedar"\n'
        'call = { name = "exec", params = { command = "rm -r src" } }\n'
        'expect = { blocked_by = "cedar" }\n\n'
        '[[case]]\nname = "ls runs"\n'
        'call = { name = "exec", params = { command = "ls" } }\nexpect = "ok"\n'
    )
    code, out, err = run(capsys, "test", str(project.root / "cedar.cases.toml"))
    assert code == 0, out + err
    assert "2 passed" in out
    (project.root / "cedar.cases.toml").write_text(
        'config = "toolhooks.toml"\n[[case]]\nname = "wrong on purpose"\n'
        'call = { name = "exec", params = { command = "rm -r src" } }\nexpect = "ok"\n'
    )
    code, out, err = run(capsys, "test", str(project.root / "cedar.cases.toml"))
    assert code == 1 and "no-recursive-rm" in out + err


def test_whatif_lists_what_the_cedar_policies_would_change(
    project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolhooks import Runtime

    (project.root / "before.toml").write_text(
        '[tools]\nprofile = "full"\n[plugins.event_log]\npath = "events.jsonl"\n'
        'durability = "call"\n'
    )
    with Runtime(config=project.root / "before.toml") as rt:
        for command in ("rm -rf build", "ls"):
            rt.call({"name": "exec", "params": {"command": command}}, execute=lambda p: "ran")
    project.policy(NO_RM)
    project.config()
    code, out, err = run(
        capsys, "whatif", str(project.root / "events.jsonl"), "--config", "toolhooks.toml", "--json"
    )
    assert code == 0, err
    changed = json.loads(out)["changed"]
    assert len(changed) == 1
    assert changed[0]["tool"] == "exec" and changed[0]["by"] == ["cedar"]


def test_explain_call_names_the_policy(project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    project.policy(NO_RM)
    project.config()
    call = json.dumps({"name": "exec", "params": {"command": "rm -rf /"}})
    code, out, err = run(capsys, "explain", "--call", call)
    assert code == 0, err
    assert "blocked by cedar" in out
    assert "no-recursive-rm" in out
    assert "policies/main.cedar:1" in out


def test_cedar_schema_and_check(project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    project.policy(NO_RM)
    project.config()
    code, out, err = run(capsys, "cedar", "schema")
    assert code == 0, err
    schema = json.loads(out)
    context = schema[""]["actions"]["exec"]["appliesTo"]["context"]["attributes"]
    assert set(context) == {"input", "session", "from", "now", "exec"}
    code, out, err = run(capsys, "cedar", "schema", "--cedar")
    assert code == 0 and 'action "exec"' in out
    code, out, err = run(capsys, "cedar", "check")
    assert code == 0
    assert "1 policies in 1 file(s)" in out and "2 example(s) pass" in out


def test_cedar_check_reports_a_failing_example_with_its_line(
    project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    project.policy(NO_RM.replace('// not_match: "rm -f notes.txt"', '// not_match: "rm -R x"'))
    project.config()
    code, out, err = run(capsys, "cedar", "check")
    assert code == 1 and out == ""
    assert "policies/main.cedar:4: policy 'no-recursive-rm': not_match example" in err
    assert "Traceback" not in err


def test_cedar_commands_without_policies_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    code, out, err = run(capsys, "cedar", "schema")
    assert code == 2 and out == "" and "no Cedar policies" in err
