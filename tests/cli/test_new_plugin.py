"""``toolhooks new plugin``: the package it writes installs, passes its own tests, and is listed.

The main test installs the generated package into a fresh virtual environment and runs its tests
there. That environment has its own site-packages (where pip installs the plugin, with its entry
point) and borrows this interpreter's site-packages through a ``.pth`` file for everything else:
toolhooks from this checkout, pydantic, pluggy, pytest, ruff, setuptools and pip. So nothing is
downloaded, and pip, run with ``--no-index``, still resolves the generated dependencies against
what is installed: a range on toolhooks that left out this checkout's version would fail the
install. Creating the venv without pip (``--without-pip``) saves the ~15 s ensurepip takes.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
from toolhooks.cli import _scaffold
from toolhooks.loading._api_version import admits_major
from toolhooks.testing import load_cases

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "core" / "cli" / "_plugin_template"
TIMEOUT = 300


def fresh_venv(where: Path) -> Path:
    """A new venv whose own site-packages comes first, then this interpreter's; its python."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=TIMEOUT
    )
    python = where / "bin" / "python"
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=TIMEOUT,
    ).stdout.strip()
    borrowed = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    if site.ENABLE_USER_SITE:
        borrowed.append(site.getusersitepackages())
    # addsitedir, not a bare path line: the borrowed folder's own .pth files (the editable
    # install of this checkout among them) must run too.
    lines = [f"import site; site.addsitedir({path!r})" for path in dict.fromkeys(borrowed)]
    (Path(own) / "_borrowed_site.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return python


def clean_env(venv: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TOOLHOOKS_", "PYTEST_", "PYTHON", "PIP_")) and key != "VIRTUAL_ENV"
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, encoding="utf-8"
    )


def test_the_package_installs_passes_its_tests_and_is_listed(cli, tmp_path):
    made = cli("new", "plugin", "toolhooks-scaffold-check", "--dir", "pkg")
    assert made.code == 0, made.err
    package = cli.cwd / "pkg"
    python = fresh_venv(tmp_path / "venv")
    env = clean_env(tmp_path / "venv")

    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install", "-q"]
    offline = ["--no-index", "--no-build-isolation"]  # everything comes from the borrowed site
    installed = run([*pip, *offline, "-e", f"{package}[test]"], cwd=tmp_path, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    own = list((tmp_path / "venv").glob("lib/python*/site-packages/*.dist-info"))
    assert [path.name for path in own] == ["toolhooks_scaffold_check-0.1.0.dist-info"]

    tests = run([str(python), "-m", "pytest", "-p", "no:cacheprovider"], cwd=package, env=env)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    # Six tests and the two policy cases, collected by toolhooks' pytest plugin.
    assert "policy.cases.toml .." in tests.stdout
    assert "8 passed" in tests.stdout

    cases = run([str(python), "-m", "toolhooks", "test", "tests"], cwd=package, env=env)
    assert cases.returncode == 0, cases.stdout + cases.stderr
    assert "2 passed" in cases.stdout

    listed = run([str(python), "-m", "toolhooks", "plugins", "--json"], cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    plugins = {plugin["name"]: plugin for plugin in json.loads(listed.stdout)["plugins"]}
    assert plugins["scaffold_check"]["distribution"] == "toolhooks-scaffold-check"
    assert plugins["scaffold_check"]["source"] == "entry point"
    assert plugins["scaffold_check"]["enabled"] is True
    assert set(plugins["scaffold_check"]["hooks"]) == {"before_tool_call", "after_tool_call"}


@pytest.mark.parametrize("name", ["guard", "toolhooks-" + "x" * 30, "y" * 40])
def test_the_generated_code_passes_ruff_with_short_and_longest_names(cli, name):
    assert len(name) <= _scaffold.MAX_NAME
    made = cli("new", "plugin", name)
    assert made.code == 0, made.err
    for path in (cli.cwd / name).rglob("*.py"):
        long = [line for line in path.read_text().splitlines() if len(line) > 100]
        assert long == [], path
    for command in (["check"], ["format", "--check", "--diff"]):
        done = run(
            [sys.executable, "-m", "ruff", *command, "--no-cache", "."],
            cwd=cli.cwd / name,
            env=dict(os.environ),
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_what_it_writes(cli):
    made = cli("new", "plugin", "toolhooks-no-force-push")
    assert made.code == 0, made.err
    package = cli.cwd / "toolhooks-no-force-push"
    written = sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.is_file())
    assert written == sorted(
        [
            ".github/workflows/ci.yml",
            ".gitignore",
            "CHANGELOG.md",
            "README.md",
            "pyproject.toml",
            "src/toolhooks_no_force_push/__init__.py",
            "src/toolhooks_no_force_push/plugin.py",
            "tests/policy.cases.toml",
            "tests/test_plugin.py",
            "tests/toolhooks.toml",
        ]
    )
    for path in written:
        assert "$" not in (package / path).read_text().replace("${{", ""), path
    project = tomllib.loads((package / "pyproject.toml").read_text())
    version = metadata.version("toolhooks")
    major, minor = (int(part) for part in version.split(".")[:2])
    assert project["project"]["name"] == "toolhooks-no-force-push"
    assert f"toolhooks>={major}.{minor},<{major + 1}" in project["project"]["dependencies"]
    assert project["project"]["entry-points"]["toolhooks"] == {
        "no_force_push": "toolhooks_no_force_push:NoForcePushPlugin"
    }
    cases = load_cases(package / "tests" / "policy.cases.toml")
    assert [case.expect for case in cases] == [{"blocked_by": "no_force_push"}, {"status": "ok"}]
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((package / ".github/workflows/ci.yml").read_text())
    steps = [step.get("run") for step in workflow["jobs"]["test"]["steps"]]
    assert "python -m pytest" in steps
    setup = workflow["jobs"]["test"]["steps"][1]["with"]["python-version"]
    assert setup == "${{ matrix.python-version }}"
    assert "cd toolhooks-no-force-push" in made.out


def test_every_template_is_package_data_and_used():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["toolhooks"]
    assert "cli/_plugin_template/*.tmpl" in globs
    on_disk = {path.name for path in TEMPLATES.iterdir()}
    assert on_disk == set(_scaffold.FILES.values())
    assert all(name.endswith(".tmpl") for name in on_disk)


@pytest.mark.parametrize(
    ("version", "requirement"),
    [
        ("0.1.0", "toolhooks>=0.1,<1"),
        ("1.4.2", "toolhooks>=1.4,<2"),
        ("2.0", "toolhooks>=2.0,<3"),
        ("3", "toolhooks>=3,<4"),
        ("2.0.0rc1", "toolhooks>=2.0.0rc1,<3"),
        ("0.2.0.dev1", "toolhooks>=0.2.0.dev1,<1"),
        ("1.2.0+local.7", "toolhooks>=1.2,<2"),
    ],
)
def test_the_range_on_toolhooks(version, requirement):
    assert _scaffold.requirement_for(version) == requirement
    # The check at load (the other half of the issue) admits it on its own major version only.
    major = int(version.split(".")[0])
    spec = requirement.removeprefix("toolhooks")
    assert admits_major(spec, major)
    assert not admits_major(spec, major + 1)
    assert major == 0 or not admits_major(spec, major - 1)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Bad_Name", "not a usable package name"),
        ("1guard", "not a usable package name"),
        ("a--b", "not a usable package name"),
        ("guard-", "not a usable package name"),
        ("two words", "not a usable package name"),
        ("a.b", "not a usable package name"),
        ("../escape", "not a usable package name"),
        ("\x1b[2Jguard", "not a usable package name"),
        ("x" * 41, "at most 40"),
        ("", "not a usable package name"),
        ("class", "keyword"),
        ("json", "shadow the module 'json'"),
        ("toolhooks", "shadow the module 'toolhooks'"),
        ("pydantic", "shadow the module 'pydantic'"),
        ("hypothesis", "importable already"),
        ("toolhooks-2fa", "must start with a letter"),
        ("policy", "a built-in plugin"),
        ("toolhooks-loop-detection", "a built-in plugin"),
        ("workspace-guard", "the installed distribution toolhooks-example"),
        ("only", "a key of the [plugins] table"),
    ],
)
def test_a_bad_name_is_a_usage_error(cli, name, says):
    done = cli("new", "plugin", name)
    assert done.code == 2
    assert done.err.startswith("toolhooks new: error: ")
    assert says in done.err
    assert "Traceback" not in done.err and "\x1b" not in done.err
    assert done.err.count("\n") == 1
    assert list(cli.cwd.iterdir()) == []


def test_an_existing_folder_is_never_written_into(cli):
    folder = cli.cwd / "taken"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    done = cli("new", "plugin", "toolhooks-guard", "--dir", "taken")
    assert done.code == 1
    assert done.err == "toolhooks: error: taken exists and is not empty; nothing was written\n"
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["taken"]  # no staging folder left

    (cli.cwd / "a-file").write_text("")
    done = cli("new", "plugin", "toolhooks-guard", "--dir", "a-file")
    assert done.code == 1 and "is not a folder" in done.err


def test_an_empty_folder_and_a_new_nested_one_are_filled(cli):
    (cli.cwd / "empty").mkdir()
    assert cli("new", "plugin", "toolhooks-guard", "--dir", "empty").code == 0
    assert (cli.cwd / "empty" / "src" / "toolhooks_guard" / "plugin.py").is_file()
    assert cli("new", "plugin", "toolhooks-guard", "--dir", "a/b/c").code == 0
    assert (cli.cwd / "a" / "b" / "c" / "pyproject.toml").is_file()
    assert sorted(p.name for p in (cli.cwd / "a" / "b").iterdir()) == ["c"]


def test_new_without_a_kind_or_a_name_is_a_usage_error(cli):
    assert cli("new").code == 2
    done = cli("new", "plugin")
    assert done.code == 2 and "NAME" in done.err
