"""Issue #24's scenario end to end: tiny plugin packages built and installed by pip (a real wheel,
a real RECORD), the console script writing the lock, and fresh processes building a runtime from
the config and making a first call: locked; a second plugin installed (refused); a file of the
first edited (refused); locked again (both load)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TIMEOUT = 180
AGENT = """
import sys
from toolhooks import ConfigError, Runtime



def lookup(key: str) -> str:
    return key.upper()


try:
    rt = Runtime.from_config("toolhooks.toml", tools=[lookup])
except ConfigError as exc:
    print(f"refused: {exc}")
    sys.exit(3)
outcome = rt.call({"name": "lookup", "params": {"key": "k"}})
print("loaded:", ",".join(sorted(info.name for info in rt.plugins())), outcome.status, outcome.reason)
rt.close()
"""


def _script() -> str:
    found = shutil.which("toolhooks", path=str(Path(sys.executable).parent))
    assert found, "the toolhooks console script is not installed (pip install -e .)"
    return found


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.site = root / "site"
        self.work = root / "work"
        self.work.mkdir()
        (self.work / "toolhooks.toml").write_text("[plugins]\n", encoding="utf-8")
        (self.work / "agent.py").write_text(AGENT, encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOOKS_")}
        self.env["PYTHONPATH"] = str(self.site)

    def pip_install(self, name: str, module: str, entry: str) -> None:
        """Build and install a plugin package with pip, as a user would (no index, no deps)."""
        source = self.root / name
        package = source / "src" / module
        package.mkdir(parents=True)
        (source / "pyproject.toml").write_text(textwrap.dedent(f"""\
            [build-system]
            requires = ["setuptools>=68"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{name}"
            version = "1.0"
            dependencies = ["toolhooks>=0.1,<1"]

            [project.entry-points.toolhooks]
            {entry} = "{module}:Plugin"
        """), encoding="utf-8")  # fmt: skip
        (package / "__init__.py").write_text(textwrap.dedent("""\
            from toolhooks import hookimpl


            class Plugin:
                @hookimpl
                def before_tool_call(self, call):
                    return None
        """), encoding="utf-8")  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
             "--no-build-isolation", "--disable-pip-version-check", "--target", str(self.site),
             str(source)],
            capture_output=True, text=True, timeout=TIMEOUT, env=self.env, cwd=self.root,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), cwd=self.work, env=self.env, capture_output=True, text=True,
            timeout=TIMEOUT,
        )  # fmt: skip

    def lock(self, *extra: str) -> subprocess.CompletedProcess[str]:
        return self.run(_script(), "plugins", "lock", *extra)

    def agent(self) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "agent.py")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("pip is not installed in this interpreter")
    return Project(tmp_path)


def test_locked_new_plugin_refused_edit_refused_relocked_loads(project):
    project.pip_install("first-plugin", "first_plugin", "first")
    record = next(project.site.glob("first_plugin-1.0.dist-info")) / "RECORD"
    assert "first_plugin/__init__.py,sha256=" in record.read_text()
    assert project.lock().returncode == 0
    first = project.agent()
    assert first.returncode == 0, first.stdout + first.stderr
    assert "first" in first.stdout.split()[1].split(",") and first.stdout.split()[2] == "ok"

    project.pip_install("second-plugin", "second_plugin", "second")
    refused = project.agent()
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "plugin 'second'" in refused.stdout and "not in the lock" in refused.stdout
    assert "second-plugin 1.0" in refused.stdout

    assert project.lock().returncode == 0
    assert project.agent().returncode == 0
    module = project.site / "first_plugin" / "__init__.py"
    module.write_text(module.read_text() + "\nimport os  # added after the lock\n")
    edited = project.agent()
    assert edited.returncode == 3, edited.stdout + edited.stderr
    assert "plugin 'first'" in edited.stdout and "its files changed since the lock" in edited.stdout
    check = project.lock("--check")
    assert check.returncode == 1 and "plugin 'first' differs from the lock" in check.stdout

    assert project.lock().returncode == 0
    both = project.agent()
    assert both.returncode == 0, both.stdout + both.stderr
    assert {"first", "second"} <= set(both.stdout.split()[1].split(","))
    assert project.lock("--check").returncode == 0
