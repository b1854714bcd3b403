"""Issue #23 item 2: ``toolhooks test`` runs policy cases (``*.cases.toml``), and pytest
collects the same files through the ``toolhooks.testing`` plugin."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from toolhooks.testing import require

CASES = Path(__file__).with_name("cases")


def copy_cases(to: Path) -> Path:
    shutil.copytree(CASES, to / "cases")
    return to / "cases"


def test_good_cases_pass(cli):
    folder = copy_cases(cli.cwd)
    result = cli("test", str(folder))
    assert result.code == 0, result.out + result.err
    assert f"{folder / 'coding.cases.toml'} ...." in result.out
    assert result.out.rstrip().endswith("4 passed")


def test_a_failing_case_is_named_with_its_line_and_the_decision_trail(cli):
    folder = copy_cases(cli.cwd)
    extra = folder / "wrong.cases.toml"
    extra.write_text(
        'config = "coding.toml"\n\n'
        "[[case]]\n"
        'name = "guests may exec (wrong)"\n'
        'call = {name = "exec", params = {command = "ls"}, sender = {id = "g", roles = ["guest"]}}\n'
        'expect = "ok"\n'
    )
    result = cli("test", str(folder))
    assert result.code == 1
    assert f"FAILED {extra}:3 guests may exec (wrong): expected ok, got blocked by policy" in (
        result.out
    )
    assert " policy: block:" in result.out  # the trail: every handler's answer
    assert "loop_detection: not reached" in result.out
    assert result.out.rstrip().endswith("4 passed, 1 failed")


def test_a_broken_case_file_is_one_line_naming_file_and_line(cli):
    bad = cli.cwd / "bad.cases.toml"
    for text, needle in [
        ('[[case]]\nname = "x"\ncall = {name = "read"}\nexpect = "fine"\n', "bad.cases.toml:1"),
        ('[[case]]\nname = "x"\ncall = {name = "read"}\nexpect = "ok"\nextra = 1\n', "'extra'"),
        ("[[case]\n", "not valid TOML"),
        ('[[case]]\nname = "x"\nexpect = "ok"\n', "needs call"),
    ]:
        bad.write_text(text)
        result = cli("test", str(bad))
        assert result.code != 0 and "Traceback" not in result.err, result.err
        assert needle in result.err and len(result.err.strip().splitlines()) == 1, result.err


def test_no_case_file_says_so(cli):
    result = cli("test", str(cli.cwd))
    assert result.code == 1 and "no *.cases.toml" in result.err


def test_pytest_collects_the_cases_of_a_plugin_package(tmp_path):
    package = copy_cases(tmp_path)
    (package / "wrong.cases.toml").write_text(
        'config = "coding.toml"\n[[case]]\nname = "messages are fine (wrong)"\n'
        'call = {name = "message", params = {to = "x"}}\nexpect = "ok"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 4 passed" in done.stdout
    assert "messages are fine (wrong): expected ok, got blocked by policy" in done.stdout


# -- issue #32 item 12: a case's made-up calls never reach the real log or shared state ---------

REAL_SINKS = """\
[plugins.event_log]
path = "{log}"
durability = "call"

[plugins.result_budget]
artifact_dir = "{artifacts}"
max_chars = 200
"""

SINK_CASES = """\
config = "real.toml"

[[case]]
name = "a long read is trimmed"
call = {name = "read", params = {path = "big.txt"}, session_id = "s"}
result = "%s"
expect = "ok"

[[case]]
name = "a read is blocked (wrong, so that its decision trail runs too)"
call = {name = "read", params = {path = "a.txt"}, session_id = "s"}
expect = "blocked"
""" % ("line of text\\n" * 400)


def test_cases_never_write_the_configured_log_or_artifact_folder(cli):
    log, artifacts = cli.cwd / "audit" / "events.jsonl", cli.cwd / "artifacts"
    (cli.cwd / "real.toml").write_text(REAL_SINKS.format(log=log, artifacts=artifacts))
    (cli.cwd / "sinks.cases.toml").write_text(SINK_CASES)
    result = cli("test", str(cli.cwd / "sinks.cases.toml"))
    assert result.code == 1, result.out + result.err
    assert result.out.rstrip().endswith("1 passed, 1 failed"), result.out
    assert "a read is blocked (wrong" in result.out
    assert not log.exists(), log.read_text()  # not one made-up line in the audit log
    assert not artifacts.exists() or not any(artifacts.iterdir())


def test_pytest_cases_never_write_the_configured_log_either(tmp_path):
    log, artifacts = tmp_path / "events.jsonl", tmp_path / "artifacts"
    (tmp_path / "real.toml").write_text(REAL_SINKS.format(log=log, artifacts=artifacts))
    (tmp_path / "sinks.cases.toml").write_text(SINK_CASES)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "sinks.cases.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert not log.exists()


def _redis_or_skip() -> str:
    import redis

    url = os.environ.get("TOOLHOOKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        up = bool(client.ping())
        client.close()
    except redis.RedisError:
        up = False
    require(up, f"no Redis server at {url} (set TOOLHOOKS_TEST_REDIS_URL)")
    return url


@pytest.mark.parametrize("where", ["config", "environment"])
def test_cases_never_touch_the_shared_state(cli, where):
    import redis

    url = _redis_or_skip()
    prefix = f"toolhooks-test-{uuid.uuid4().hex[:12]}"
    state = f'[state]\nkey_prefix = "{prefix}"\n' + (
        f'url = "{url}"\n' if where == "config" else ""
    )
    (cli.cwd / "real.toml").write_text(
        state + '\n[plugins]\nonly = ["loop_detection", "call_limits"]\n'
    )
    (cli.cwd / "loop.cases.toml").write_text(
        'config = "real.toml"\n\n[[case]]\nname = "the same read three times"\n'
        'calls = [{name = "read", params = {path = "a"}, session_id = "s"},'
        ' {name = "read", params = {path = "a"}, session_id = "s"}]\n'
        'result = "same"\nexpect = "ok"\n'
    )
    env = {"TOOLHOOKS_STATE_URL": url} if where == "environment" else {}
    client = redis.Redis.from_url(url)
    try:
        result = cli("test", str(cli.cwd / "loop.cases.toml"), env=env)
        assert result.code == 0, result.out + result.err
        assert list(client.scan_iter(match=f"{prefix}:*", count=1000)) == []
    finally:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
