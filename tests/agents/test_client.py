"""The hook client (``toolhooks hook AGENT``, stdlib only): which project it finds, and that the
agent gets its answer whatever happens to the daemon: killed mid-call, unable to start, not
allowed a folder, or no toolhooks that runs at all (then fail closed, or ``on_error = "allow"``).
Real hook subprocesses, a real daemon, a throwaway plugin installed as a real distribution."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from daemon_support import Project, before, config, decision, wait_for, wait_gone

GATE = """
import os
import time
from pathlib import Path

from toolhooks import hookimpl


class Gate:
    '''A call to "gate" stalls the first runtime that meets it (until the file "open" appears
    in $GATE_DIR); any other runtime decides it at once. Both answers say which happened.'''

    priority = 1000

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call):
        if not str(call.params.get("command", "")).startswith("gate"):
            return None
        gate = Path(os.environ["GATE_DIR"])
        try:
            (gate / "armed").rename(gate / "entered")
        except FileNotFoundError:
            return {"block": True, "block_reason": "gate: decided at once"}
        deadline = time.monotonic() + 120
        while not (gate / "open").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return {"block": True, "block_reason": "gate: decided after waiting"}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path / "project")
    made.root.mkdir()
    made.write_config(config())
    return made


@pytest.fixture
def gated(install_dist, tmp_path: Path) -> tuple[Project, Path]:
    """A project with the Gate plugin installed, and the gate's folder."""
    site = install_dist("gate-plugin", {"gate_plugin": GATE}, {"gate": "gate_plugin:Gate"})
    gate = tmp_path / "gate"
    gate.mkdir()
    made = Project(tmp_path / "project", {"PYTHONPATH": str(site), "GATE_DIR": str(gate)})
    made.root.mkdir()
    made.write_config(config())
    assert json.loads(made.hook(before("echo warm")).stdout) == {}  # the daemon is up
    return made, gate


def test_a_daemon_killed_mid_call_still_gets_the_hook_its_answer(gated):
    project, gate = gated
    pid = project.pid()
    (gate / "armed").touch()
    hook = project.start_hook(before("gate 1", call="toolu_2"))
    wait_for((gate / "entered").exists, "the daemon to be inside the call")
    os.kill(pid, signal.SIGKILL)
    out, err = hook.communicate(timeout=120)
    # EOF from the daemon: the hook answered in its own process (the gate was not armed there).
    assert hook.returncode == 0, err
    assert decision(out) == ("deny", "gate: decided at once")
    assert wait_gone(pid)
    # And the next hook starts a daemon again.
    assert json.loads(project.hook(before("echo hi", call="toolu_3")).stdout) == {}
    assert project.pid() not in (None, pid)


def test_a_hook_waiting_in_the_daemon_holds_up_no_other_session(gated):
    project, gate = gated
    (gate / "armed").touch()
    waiting = project.start_hook(before("gate 1", session="A", call="toolu_2"))
    wait_for((gate / "entered").exists, "session A's call to wait in the daemon")
    other = project.hook(before("echo hi", session="B", call="toolu_3"))
    assert json.loads(other.stdout) == {}
    assert waiting.poll() is None  # still waiting while B was answered
    (gate / "open").touch()
    out, err = waiting.communicate(timeout=120)
    assert decision(out) == ("deny", "gate: decided after waiting"), err


def test_the_project_is_found_from_a_sub_folder(project):
    deep = project.root / "src" / "pkg"
    deep.mkdir(parents=True)
    done = project.hook(before("https://example.com", tool="WebFetch"), cwd=deep)
    assert decision(done.stdout)[0] == "deny"  # the root's config: web_fetch denied
    assert (project.state / "agentd.sock").exists() and not (deep / ".toolhooks").exists()
    assert project.events()  # the config's relative log path: the root's


def test_a_pyproject_table_is_a_project_too(tmp_path):
    project = Project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.toolhooks.tools]\ndeny = ["web_fetch"]\n'
    )
    (tmp_path / "sub").mkdir()
    done = project.hook(before("https://example.com", tool="WebFetch"), cwd=tmp_path / "sub")
    assert decision(done.stdout)[0] == "deny"
    assert project.status()["config"] == str(tmp_path / "pyproject.toml")


def test_toolhooks_config_relative_to_the_hooks_cwd(project):
    elsewhere = project.root.parent / "elsewhere"
    elsewhere.mkdir()
    done = project.hook(
        before("https://example.com", tool="WebFetch"),
        cwd=elsewhere,
        env={"TOOLHOOKS_CONFIG": "../project/toolhooks.toml"},
    )
    assert decision(done.stdout)[0] == "deny"
    assert project.pid() is not None and not (elsewhere / ".toolhooks").exists()


def test_a_config_named_but_missing_is_refused(project):
    done = project.hook(before("echo hi"), env={"TOOLHOOKS_CONFIG": "nowhere.toml"})
    answer, reason = decision(done.stdout)
    assert answer == "deny" and "nowhere.toml" in reason and "config" in reason


def test_without_a_place_for_the_daemon_the_hook_answers_itself(project):
    (project.root / ".toolhooks").write_text("a file, not a folder")
    done = project.hook(before("https://example.com", tool="WebFetch"))
    assert decision(done.stdout)[0] == "deny"
    assert project.pid() is None


def test_no_daemon_asks_for_none(project):
    done = project.hook(before("https://example.com", tool="WebFetch"), "--no-daemon")
    assert decision(done.stdout)[0] == "deny"
    assert not (project.state / "agentd.sock").exists()


def test_a_socket_path_that_is_no_socket_is_not_used(project):
    project.state.mkdir(mode=0o700)
    (project.state / "agentd.sock").write_text("not a socket")
    done = project.hook(before("https://example.com", tool="WebFetch"))
    assert decision(done.stdout)[0] == "deny"
    assert project.pid() is None


BROKEN_PYDANTIC = "raise ImportError('this pydantic is broken on purpose')\n"


@pytest.mark.parametrize(("on_error", "expected"), [("deny", "deny"), ("allow", None)])
def test_when_nothing_can_run_the_hook_fails_closed_unless_on_error_allows(
    project, tmp_path, on_error, expected
):
    """No daemon can start and no runtime can be built here (pydantic does not import): the
    answer comes from the agent's protocol alone (stdlib), as the config's on_error says."""
    broken = tmp_path / "broken"
    (broken / "pydantic").mkdir(parents=True)
    (broken / "pydantic" / "__init__.py").write_text(BROKEN_PYDANTIC)
    project.write_config(config(agents=f'on_error = "{on_error}"'))
    done = project.hook(before("echo hi"), env={"PYTHONPATH": str(broken)})
    assert done.returncode == 0, done.stderr
    answer, reason = decision(done.stdout)
    assert answer == expected
    if expected:
        assert "toolhooks cannot run" in reason and "broken on purpose" in reason
    assert project.pid() is None


def test_an_unknown_option_is_a_usage_error(project):
    done = project.hook(before("echo hi"), "--verbose")
    assert done.returncode == 2 and b"unknown argument '--verbose'" in done.stderr


def test_help_goes_to_the_command_line(project):
    done = project.hook(b"", "--help")
    assert done.returncode == 0 and b"usage:" in done.stdout


def test_config_given_on_the_command_line_wins(project):
    elsewhere = project.root.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "toolhooks.toml").write_text(config(denied="exec"))  # found from the cwd
    stdin = before("https://example.com", tool="WebFetch")
    done = project.hook(stdin, "--config", str(project.root / "toolhooks.toml"), cwd=elsewhere)
    assert decision(done.stdout)[0] == "deny"  # the named config: web_fetch denied, exec not
    assert (
        json.loads(project.hook(before("echo hi", call="toolu_2"), cwd=project.root).stdout) == {}
    )
    assert not (elsewhere / ".toolhooks").exists()
