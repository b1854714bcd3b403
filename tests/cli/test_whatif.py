"""Issue #23 item 1: ``toolhooks whatif`` replays a real log under another config.

The log is made in the test by the real pipeline (a Runtime with the event log writing JSONL,
rotated into several files, two throwaway plugins of the test's own), then compared under the
same config (nothing changes), a stricter one and a looser one (every kind of change shows).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from .conftest import TIMEOUT, script

PLUGINS = '''
from pydantic import BaseModel, ConfigDict
from toolhooks import BeforeToolCallResult, hookimpl


class Rooted:
    """Moves a relative read under the workspace root."""

    name = "rooted"

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")
        root: str = "/ws"

    def __init__(self, config=None):
        self.root = (config or self.Config()).root

    @hookimpl(tools=["read"])
    def before_tool_call(self, call):
        path = call.params.get("path", "")
        if not path.startswith("/"):
            return BeforeToolCallResult(params={"path": f"{self.root}/{path}"})
        return None


class Gate:
    """Asks a person before a command that starts with one of ``ask``."""

    name = "gate"

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")
        ask: list[str] = ["git push"]

    def __init__(self, config=None):
        self.ask = (config or self.Config()).ask

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        command = call.params.get("command", "")
        if any(command.startswith(prefix) for prefix in self.ask):
            return {"require_approval": {"title": "Run it?", "description": command}}
        return None
'''

BASE = """
[tools]
profile = "coding"

[tools.by_sender."role:guest"]
deny = ["group:runtime"]

[plugins]
only = ["policy", "loop_detection", "event_log", "rooted", "gate"]

[plugins.loop_detection]
warning_threshold = 3
critical_threshold = 5

[plugins.event_log]
path = "{log}"
durability = "call"
max_bytes = 4000
backup_count = 100
max_line_bytes = 2048

[plugins.rooted]
root = "/ws"

[plugins.gate]
ask = ["git push"]
"""
STRICTER = (
    BASE.replace('ask = ["git push"]', 'ask = ["git push", "rm "]')
    .replace('root = "/ws"', 'root = "/srv"')
    .replace("warning_threshold = 3", "warning_threshold = 2")
    + '\n[tools.by_sender."role:dev"]\ndeny = ["web_fetch"]\n'
)
LOOSER = (
    BASE.replace('deny = ["group:runtime"]', "deny = []")
    .replace('ask = ["git push"]', "ask = []")
    .replace('"rooted", ', "")
    .replace("critical_threshold = 5", "critical_threshold = 9")
    .replace('[plugins.rooted]\nroot = "/ws"\n', "")
)

DEV = {"id": "dev", "roles": ["dev"]}
GUEST = {"id": "g", "roles": ["guest"]}
# (call, the result its tool gives); every call is in session s1 unless it says otherwise.
CALLS: list[tuple[dict[str, Any], Any]] = [
    ({"name": "read", "params": {"path": "a.txt"}, "sender": DEV}, "alpha"),
    ({"name": "exec", "params": {"command": "ls"}, "sender": GUEST}, "a.txt"),
    ({"name": "exec", "params": {"command": "pytest -q"}, "sender": DEV}, "3 passed"),
    ({"name": "exec", "params": {"command": "git push"}, "sender": DEV}, "pushed"),
    ({"name": "exec", "params": {"command": "rm -rf build"}, "sender": DEV}, ""),
    ({"name": "web_fetch", "params": {"url": "https://example.org"}, "sender": DEV}, "<html>"),
    *[
        ({"name": "process", "params": {"action": "poll"}, "session_id": "s2"}, "running")
        for _ in range(6)
    ],
    ({"name": "write", "params": {"path": "/ws/big", "content": "x" * 5000}}, "written"),
    ({"name": "read", "params": {"path": "/ws/b.txt"}, "session_id": "s3"}, "beta"),
]
IDS = [f"c{n:02d}" for n in range(1, len(CALLS) + 1)]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the plugins module, the three configs and the log the real pipeline wrote."""
    folder = tmp_path_factory.mktemp("whatif")
    (folder / "whatif_plugins.py").write_text(textwrap.dedent(PLUGINS), encoding="utf-8")
    log = folder / "logs" / "events.jsonl"
    for name, text in (("base", BASE), ("stricter", STRICTER), ("looser", LOOSER)):
        (folder / f"{name}.toml").write_text(text.format(log=log), encoding="utf-8")
    code = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {str(folder)!r})
        from toolhooks import Runtime
        from whatif_plugins import Gate, Rooted

        calls = json.loads(sys.stdin.read())
        rt = Runtime(config={str(folder / "base.toml")!r}, plugins=[Rooted, Gate],
                     approver=lambda pending: "allow-once")
        for call_id, (call, result) in calls:
            call = dict(call, id=call_id)
            call.setdefault("session_id", "s1")
            rt.call(call, execute=lambda params, result=result: result)
        rt.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(list(zip(IDS, CALLS, strict=True))),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")},
    )
    assert done.returncode == 0, done.stderr
    assert len(list(log.parent.iterdir())) > 3, "the log should have rotated"
    return folder


def whatif(cli: Any, folder: Path, config: str, *args: str, log: str | None = None) -> Any:
    return cli(
        "whatif",
        log or str(folder / "logs" / "events.jsonl"),
        "--config",
        str(folder / f"{config}.toml"),
        "--plugins",
        "whatif_plugins:Rooted,whatif_plugins:Gate",
        *args,
    )


@pytest.fixture
def plugins_importable(recorded: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(recorded))
    return recorded


def changed(result: Any) -> dict[str, dict[str, Any]]:
    return {entry["call_id"]: entry for entry in result.json()["changed"]}


def test_the_same_config_changes_nothing(cli, plugins_importable):
    result = whatif(cli, plugins_importable, "base", "--json", "--fail-on-change")
    assert result.code == 0, result.out + result.err
    data = result.json()
    assert data["changed"] == []
    # c13 is cut for size (its params are over max_line_bytes): it cannot be replayed.
    assert data["unchanged"] == len(CALLS) - 1
    assert data["cannot_replay"] == 1 and data["unreadable"] == 0
    assert data["cannot_replay_calls"] == [
        {
            "call_id": "c13",
            "tool": "write",
            "reason": "params cut for size (the line was over max_line_bytes)",
        }
    ]


def test_a_stricter_config_shows_every_kind_of_change(cli, plugins_importable):
    result = whatif(cli, plugins_importable, "stricter", "--json", "--fail-on-change")
    assert result.code == 1, result.err
    found = changed(result)
    assert found["c05"]["before"] == "ok"
    assert found["c05"]["after"] == "needs approval from gate"
    assert found["c05"]["kinds"] == ["ok -> approval"] and found["c05"]["by"] == ["gate"]
    assert found["c06"]["before"] == "ok" and found["c06"]["after"] == "blocked by policy"
    assert found["c06"]["kinds"] == ["ok -> blocked"]
    # The same field rewritten to another value: the log has the params that ran.
    assert found["c01"]["kinds"] == ["rewrite changed"] and found["c01"]["by"] == ["rooted"]
    # A lower warning threshold warns one poll earlier (the warning is given once).
    assert found["c08"]["kinds"] == ["loop warning added"]
    assert found["c08"]["by"] == ["loop_detection"]
    assert found["c09"]["kinds"] == ["loop warning removed"]
    # Unchanged calls are not listed: the guest's blocked exec, the approval, the critical poll.
    assert not {"c02", "c03", "c04", "c11", "c14"} & found.keys()
    data = result.json()
    assert data["unchanged"] + len(data["changed"]) + data["cannot_replay"] == len(CALLS)
    assert data["by_plugin"]["gate"] == {"ok -> approval": 1}


def test_a_looser_config_shows_the_other_way(cli, plugins_importable):
    result = whatif(cli, plugins_importable, "looser", "--json")
    assert result.code == 0  # without --fail-on-change a change is not a failure
    found = changed(result)
    assert found["c02"]["before"] == "blocked by policy" and found["c02"]["after"] == "ok"
    assert found["c02"]["kinds"] == ["blocked -> ok"] and found["c02"]["by"] == ["policy"]
    assert found["c04"]["before"] == "needs approval from gate"
    assert found["c04"]["kinds"] == ["approval -> ok"]
    assert found["c01"]["kinds"] == ["rewrite removed"]
    assert found["c01"]["after"] == "ok"
    # A higher critical threshold: the sixth poll is no longer blocked as a loop.
    assert found["c12"]["before"] == "blocked by loop_detection"
    assert found["c12"]["kinds"] == ["blocked -> ok"]
    assert "c03" not in found and "c06" not in found


def test_the_text_output_lists_changes_and_counts(cli, plugins_importable):
    result = whatif(cli, plugins_importable, "stricter")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    line = next(text for text in lines if text.startswith("c06  "))
    assert line == 'c06  web_fetch  {url: "https://example.org"}  ok -> blocked by policy'
    assert any(
        text.startswith("c01  read  ") and text.endswith('(path: "/ws/a.txt" -> "/srv/a.txt")')
        for text in lines
    )
    assert f"{len(CALLS)} calls: 6 changed, 7 unchanged, 1 cannot replay" in result.out
    assert "ok -> approval" in result.out and "PLUGIN" in result.out
    assert "c13 write: params cut for size" in result.out


def test_the_same_answer_twice(cli, plugins_importable):
    first = whatif(cli, plugins_importable, "stricter", "--json")
    second = whatif(cli, plugins_importable, "stricter", "--json")
    assert first.out == second.out and first.code == second.code


def test_rotated_files_a_folder_and_one_file_give_the_same_answer(cli, plugins_importable):
    logs = plugins_importable / "logs"
    whole = whatif(cli, plugins_importable, "stricter", "--json").json()
    folder = whatif(cli, plugins_importable, "stricter", "--json", log=str(logs)).json()
    joined = cli.cwd / "joined.jsonl"
    files = written(logs)
    joined.write_bytes(b"".join(path.read_bytes() for path in files))
    one = whatif(cli, plugins_importable, "stricter", "--json", log=str(joined)).json()
    assert len(whole["files"]) == len(files) > 3
    for other in (folder, one):
        assert other["changed"] == whole["changed"]
        assert other["unchanged"] == whole["unchanged"]
    # Several files named: each is read once, whatever the order they are named in.
    named = [str(path) for path in files]
    result = cli(
        "whatif", *reversed(named), str(logs / "events.jsonl"),
        "--config", str(plugins_importable / "stricter.toml"),
        "--plugins", "whatif_plugins:Rooted,whatif_plugins:Gate", "--json",
    )  # fmt: skip
    assert result.json()["unchanged"] == whole["unchanged"], result.err


def test_corrupt_lines_are_counted_and_named_by_line(cli, plugins_importable):
    source = plugins_importable / "logs"
    copy = cli.cwd / "logs"
    copy.mkdir()
    for path in source.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    target = copy / "events.jsonl"
    lines = target.read_bytes().splitlines(keepends=True)
    lines.insert(1, b"not json at all\n")
    lines.insert(3, b'{"event": 5, "call_id": "x"}\n')
    target.write_bytes(b"".join(lines))
    result = whatif(cli, plugins_importable, "base", "--json", log=str(target))
    data = result.json()
    assert data["unreadable"] == 2
    assert data["unreadable_lines"] == [
        {"file": str(target), "line": 2, "problem": "not a JSON object"},
        {"file": str(target), "line": 4, "problem": "event is not a name: 5"},
    ]
    assert data["changed"] == [] and data["unchanged"] == len(CALLS) - 1
    text = whatif(cli, plugins_importable, "base", log=str(target))
    assert f"{target}:2: skipped: not a JSON object" in text.err
    assert "2 unreadable lines skipped" in text.out


def test_redacted_params_cannot_be_replayed(cli, plugins_importable):
    """A copy of the log scrubbed before it was shared: the call is counted, never guessed."""
    copy = cli.cwd / "scrubbed.jsonl"
    out = []
    for path in written(plugins_importable / "logs"):
        for raw in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(raw)
            if event["call_id"] == "c03" and event["event"] in ("tool.proposed", "tool.started"):
                event["params"]["command"] = "[REDACTED]"
            out.append(json.dumps(event))
    copy.write_text("\n".join(out) + "\n", encoding="utf-8")
    data = whatif(cli, plugins_importable, "stricter", "--json", log=str(copy)).json()
    reasons = {entry["call_id"]: entry["reason"] for entry in data["cannot_replay_calls"]}
    assert reasons == {"c03": "params redacted", "c13": reasons["c13"]}
    assert data["cannot_replay"] == 2 and "c03" not in changed_ids(data)


def written(logs: Path) -> list[Path]:
    """The log's files in the order they were written: events.jsonl.N ... .1, events.jsonl."""
    files = [
        path for path in logs.iterdir() if path.suffix == ".jsonl" or path.suffix[1:].isdigit()
    ]
    return sorted(files, key=lambda p: -int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)


def changed_ids(data: dict[str, Any]) -> set[str]:
    return {entry["call_id"] for entry in data["changed"]}


def test_since_until_and_session_select_calls(cli, plugins_importable):
    times = {}
    for path in (plugins_importable / "logs").iterdir():
        for raw in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(raw)
            if event["event"] == "tool.proposed":
                times[event["call_id"]] = event["ts"]

    def iso(ts: float) -> str:
        return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat()

    # Between two calls' times, so that a microsecond's rounding cannot move a call across.
    since = iso((times["c04"] + times["c05"]) / 2)
    until = iso((times["c06"] + times["c07"]) / 2)
    data = whatif(cli, plugins_importable, "stricter", "--json", "--since", since, "--until", until)
    assert data.json()["unchanged"] + len(data.json()["changed"]) == 2  # c05 and c06
    assert changed_ids(data.json()) == {"c05", "c06"}
    sessions = whatif(cli, plugins_importable, "stricter", "--json", "--session", "s2,s3").json()
    assert sessions["unchanged"] + len(sessions["changed"]) == 7
    assert changed_ids(sessions) == {"c08", "c09", "c10"}


def test_bad_input_is_one_line(cli, plugins_importable):
    missing = whatif(cli, plugins_importable, "base", log=str(cli.cwd / "nope.jsonl"))
    assert missing.code == 1 and "no such file or folder" in missing.err
    assert "Traceback" not in missing.err
    empty = cli.cwd / "empty"
    empty.mkdir()
    none = whatif(cli, plugins_importable, "base", log=str(empty))
    assert none.code == 1 and "no event log" in none.err
    bad = cli("whatif", str(cli.cwd), "--plugins", "no_such_module_here:X")
    assert bad.code == 2 and "cannot import no_such_module_here" in bad.err
    assert len(bad.err.strip().splitlines()) == 1


def test_caller_text_is_escaped_on_the_terminal(cli, plugins_importable, tmp_path):
    """A tool name and params with escape sequences reach the terminal as visible escapes."""
    log = tmp_path / "hostile.jsonl"
    code = textwrap.dedent(
        f"""
        from toolhooks import Runtime
        rt = Runtime(config={{"plugins": {{"only": ["event_log", "policy"],
                     "event_log": {{"path": {str(log)!r}, "durability": "call"}}}}}})
        rt.call({{"name": "exec", "id": "evil\\x1b[2J", "params": {{"command": "ls\\x1b]0;pwned\\x07"}}}},
                execute=lambda params: "ok")
        rt.close()
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=TIMEOUT)
    strict = cli.cwd / "deny.toml"
    strict.write_text('[plugins]\nonly = ["policy"]\n[tools]\ndeny = ["exec"]\n')
    result = cli("whatif", str(log), "--config", str(strict))
    assert "\x1b" not in result.out and "\x07" not in result.out
    assert "evil\\x1b[2J" in result.out and "blocked by policy" in result.out
    assert "ls\\x1b]0;pwned\\x07" in result.out


def test_a_progress_line_only_on_a_terminal(cli, plugins_importable):
    args = [
        "whatif", str(plugins_importable / "logs"),
        "--config", str(plugins_importable / "base.toml"),
        "--plugins", "whatif_plugins:Rooted,whatif_plugins:Gate", "--progress-every", "0",
    ]  # fmt: skip
    env = dict(cli.env, PYTHONPATH=str(plugins_importable))
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [script(), *args], cwd=cli.cwd, env=env, stdout=subprocess.PIPE, stderr=slave
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out, _ = process.communicate(timeout=TIMEOUT)
    on_terminal = b"".join(chunks).decode()
    assert "\rwhatif: " in on_terminal and "calls (" in on_terminal
    assert b"whatif: " not in out  # stdout (a pipe) has none of it
    piped = subprocess.run(
        [script(), *args], cwd=cli.cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert piped.returncode == 0 and "\r" not in piped.stderr and "calls (" not in piped.stderr


def _bench() -> Any:
    """bench/whatif.py: the log generator and the measured run the benchmark uses."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / "whatif.py"
    spec = importlib.util.spec_from_file_location("bench_whatif", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_million_calls_in_bounded_memory(tmp_path):
    """1 M calls (2 GB of log in 50 MB files, the lines of a real run with their own ids) under
    a stricter config: every call counted, the 1,000 that change found, peak RSS under 200 MB."""
    bench = _bench()
    base, stricter = bench.configs(str(tmp_path))
    templates = bench.record_templates(str(tmp_path), base)
    log = tmp_path / "big" / "events.jsonl"
    log.parent.mkdir()
    files = bench.write_log(templates, str(log), 1_000_000)
    assert len(files) > 10
    run = bench.run_whatif(str(log), stricter, str(tmp_path / "out.json"))
    assert run.calls == 1_000_000
    assert run.changed == 1_000 and run.unchanged == 999_000
    assert run.peak_rss_kb < 200 * 1024, f"peak RSS {run.peak_rss_kb / 1024:.0f} MB"
    print(f"\n1M calls: {run.per_second:,.0f} calls/s, peak RSS {run.peak_rss_kb / 1024:.0f} MB")


def test_the_benchmark_log_replays_unchanged_under_its_own_config(tmp_path):
    """The generated log (bench/whatif.py, the 1 M test) is in the shape the pipeline writes:
    under the config it was recorded with, nothing changes and nothing is unreadable."""
    bench = _bench()
    base, stricter = bench.configs(str(tmp_path))
    templates = bench.record_templates(str(tmp_path), base)
    log = tmp_path / "big" / "events.jsonl"
    log.parent.mkdir()
    bench.write_log(templates, str(log), 3_000)
    same = bench.run_whatif(str(log), base, str(tmp_path / "same.json"))
    assert (same.calls, same.changed, same.unchanged) == (3_000, 0, 3_000)
    data = json.loads((tmp_path / "same.json").read_text())
    assert data["unreadable"] == 0 and data["cannot_replay"] == 0
    assert bench.run_whatif(str(log), stricter, str(tmp_path / "s.json")).changed == 3


def test_a_paused_call_is_compared_once_and_its_resume_is_not_a_new_call(
    cli, tmp_path, monkeypatch
):
    """A deferred call ends (for whatif) at approval.deferred; the resume's events, written
    after later calls, belong to it and are not taken for a call without a proposal."""
    from toolhooks import Runtime, hookimpl

    log = tmp_path / "paused.jsonl"
    config = cli.config(
        f"""
        [plugins]
        only = ["policy", "event_log", "asker"]
        [plugins.event_log]
        path = "{log}"
        durability = "call"
        """
    )

    class Asker:
        name = "asker"

        @hookimpl
        def before_tool_call(self, call):
            if call.params.get("command") == "deploy":
                return {"require_approval": {"title": "Deploy?", "description": "deploy"}}
            return None

    rt = Runtime(config=str(config), plugins=[Asker()], approver=lambda pending: "defer")
    paused = rt.call(
        {"name": "exec", "id": "p1", "params": {"command": "deploy"}}, execute=lambda p: "never"
    )
    assert paused.status == "pending" and paused.pending is not None
    for n in range(3):
        rt.call({"name": "read", "id": f"r{n}", "params": {"path": f"{n}.txt"}}, execute=str)
    done = rt.resume(paused.pending.id, "allow-once", execute=lambda params: "deployed")
    assert done.status == "ok"
    rt.close()
    # The same config, with the plugin from a module file the command can import.
    (tmp_path / "asker_plugin.py").write_text(
        textwrap.dedent(
            """
            from toolhooks import hookimpl

            class Asker:
                name = "asker"

                @hookimpl
                def before_tool_call(self, call):
                    if call.params.get("command") == "deploy":
                        return {"require_approval": {"title": "Deploy?", "description": "deploy"}}
                    return None
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = cli(
        "whatif", str(log), "--config", str(config), "--plugins", "asker_plugin:Asker", "--json"
    )
    data = result.json()
    assert data["changed"] == [] and data["cannot_replay"] == 0, result.out
    assert data["calls"] == 4 and data["unchanged"] == 4


def test_a_call_that_never_ends_holds_back_a_bounded_number_of_calls():
    """The oldest open call is given up as incomplete beyond the bound; the rest go on."""
    from toolhooks.events._calls import INCOMPLETE, CallReader

    def call(call_id: str, ts: float) -> list[dict[str, Any]]:
        envelope = {"ts": ts, "call_id": call_id, "session_id": "s", "tool": "read"}
        return [
            dict(envelope, event="tool.proposed", params={"path": call_id}, sender=None),
            dict(envelope, event="tool.injected", status="ok"),
        ]

    stuck = [dict(call("stuck", 0.0)[0])]  # proposed, never ended (the process died)
    events = stuck + [event for n in range(10) for event in call(f"c{n}", 1.0 + n)]
    seen = list(CallReader(max_open=3).feed(events))
    assert [c.call_id for c in seen] == ["stuck", *(f"c{n}" for n in range(10))]
    assert seen[0].problem == INCOMPLETE
    assert all(c.problem is None and c.proposal is not None for c in seen[1:])


HISTORY = """
[plugins]
only = ["policy", "rules", "event_log"]

[tools]
profile = "full"

[[rules]]
id = "outside"
tools = ["web_fetch"]
label = "outside"

[[rules]]
id = "no-exec-after-outside"
tools = ["exec"]
session = ["outside"]
decision = "deny"
reason = "No commands after reading the web"
"""


def _history_log(tmp_path: Path) -> Path:
    """A real log of two sessions: one reads the web and is then refused a command, the other
    runs the same command."""
    from toolhooks import Runtime

    log = tmp_path / "history.jsonl"
    config = tmp_path / "history.toml"
    config.write_text(HISTORY + f'\n[plugins.event_log]\npath = "{log}"\n')
    rt = Runtime(config=config)
    try:
        tools = {"web_fetch": lambda p: "a page", "exec": lambda p: "ran"}
        for session, calls in (
            (
                "read-then-run",
                [("web_fetch", {"url": "https://example.com"}), ("exec", {"command": "ls"})],
            ),
            ("run-only", [("exec", {"command": "ls"})]),
        ):
            for name, params in calls:
                call = {"name": name, "params": params, "session_id": session}
                rt.call(call, execute=tools[name])
        statuses = [
            rt.call(
                {"name": "exec", "params": {"command": "ls"}, "session_id": "read-then-run"},
                execute=tools["exec"],
            ).status
        ]
        assert statuses == ["blocked"]
    finally:
        rt.close()
    return log


def test_a_sessions_labels_are_replayed_in_order(cli, tmp_path):
    log = _history_log(tmp_path)
    same = tmp_path / "same.toml"
    same.write_text(HISTORY)
    result = cli("whatif", str(log), "--config", str(same), "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    # The refused command is refused again only because the replay gave its session the label
    # of the earlier web_fetch; the other session's command still runs.
    assert report["changed"] == [], report["changed"]
    assert "`from`" not in result.err


def test_whatif_says_it_cannot_replay_from(cli, tmp_path):
    log = _history_log(tmp_path)
    with_from = tmp_path / "from.toml"
    with_from.write_text(
        HISTORY
        + """
[[rules]]
id = "no-outside-hosts"
tools = ["web_fetch"]
from = ["outside"]
decision = "deny"
"""
    )
    result = cli("whatif", str(log), "--config", str(with_from))
    assert result.code == 0, result.err
    assert "no `from` condition holds in the replay" in result.err
