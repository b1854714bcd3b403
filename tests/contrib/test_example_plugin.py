"""contrib/toolhooks-example installed for real into a temporary environment, found by from_config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "contrib" / "toolhooks-example"

AGENT = textwrap.dedent(
    """
    import json, sys
    from toolhooks import Runtime
    rt = Runtime.from_config()
    names = [p.name for p in rt.plugins()]
    @rt.tool
    def read(path: str) -> str:
        return f"contents of {path}: token sk-abcdefghijklmnopqrstuvwx"
    outcome = rt.call({"name": "read", "params": {"path": "notes/todo.md"}})
    escape = rt.call({"name": "read", "params": {"path": "../../etc/passwd"}})
    info = {p.name: p.distribution for p in rt.plugins()}
    print(json.dumps({"names": names, "info": info, "content": outcome.content, "params": outcome.params,
                      "rewritten_by": outcome.rewritten_by, "escape": [escape.status, escape.reason]}))
    """
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """pip-install the example (not editable, no deps) into a throwaway target directory."""
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(EXAMPLE),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(target.glob("toolhooks_example-*.dist-info"))
    return target


def run_agent(site: Path, workdir: Path, config: str) -> dict:
    (workdir / "toolhooks.toml").write_text(config)
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("TOOLHOOKS_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-c", AGENT], cwd=workdir, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_from_config_finds_configures_and_runs_the_example(installed, tmp_path):
    result = run_agent(
        installed,
        tmp_path,
        '[plugins]\nonly = ["workspace_guard"]\n\n'
        '[plugins.workspace_guard]\nworkspace = "/srv/agent"\n',
    )
    assert result["names"] == ["workspace_guard"]
    assert result["info"] == {"workspace_guard": "toolhooks-example"}
    assert result["params"] == {"path": "/srv/agent/notes/todo.md"}
    assert result["rewritten_by"] == {"path": "workspace_guard"}
    assert "sk-abcdef" not in result["content"] and "[REDACTED]" in result["content"]
    assert "redacted 1 secret" in result["content"]
    assert (
        result["escape"][0] == "blocked"
        and "outside the workspace /srv/agent" in result["escape"][1]
    )


def test_the_example_does_nothing_until_configured(installed, tmp_path):
    """Installed, it is in every runtime of the environment: without its table it must not
    rewrite paths, block, ask or redact."""
    result = run_agent(installed, tmp_path, '[plugins]\nonly = ["workspace_guard"]\n')
    assert result["names"] == ["workspace_guard"]
    assert result["params"] == {"path": "notes/todo.md"} and result["rewritten_by"] == {}
    assert "sk-abcdefghijklmnopqrstuvwx" in result["content"]
    assert result["escape"] == ["ok", None]


def test_disable_switches_the_example_off(installed, tmp_path):
    result = run_agent(installed, tmp_path, '[plugins]\ndisable = ["workspace_guard"]\n')
    assert "workspace_guard" not in result["names"]
    assert result["params"] == {"path": "notes/todo.md"}
    assert "sk-abcdef" in result["content"]


def test_bad_example_config_names_the_key_and_file(installed, tmp_path):
    (tmp_path / "toolhooks.toml").write_text(
        '[plugins.workspace_guard]\nworkspace = "/w"\nworkspaces = "/x"\n'
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    done = subprocess.run(
        [sys.executable, "-c", "from toolhooks import Runtime; Runtime.from_config()"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "unknown key 'workspaces' in [plugins.workspace_guard]" in done.stderr
    assert "toolhooks.toml:3" in done.stderr


def test_an_unconfigured_example_builds_no_model(installed, tmp_path):
    """Loaded into every runtime, the inert example costs no pydantic model class (its
    ``Config`` is a LazyConfig); given keys, or read, the model is the one it always was."""
    code = textwrap.dedent(
        """
        import sys
        from toolhooks import Runtime
        rt = Runtime.from_config()
        assert rt.get_plugin("workspace_guard").active is False
        rt.close()
        print("toolhooks_example._config" in sys.modules)
        from toolhooks_example import WorkspaceGuard
        guard = WorkspaceGuard()
        print(guard.config == WorkspaceGuard.Config(), guard.describe()["workspace"])
        print(WorkspaceGuard(WorkspaceGuard.Config()).active)
        print(WorkspaceGuard(WorkspaceGuard.Config(workspace="/w/")).workspace)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    env.pop("TOOLHOOKS_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "/workspace", "False", "/w"]
