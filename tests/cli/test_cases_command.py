"""Issue #23 item 2: ``toolhooks test`` runs policy cases (``*.cases.toml``), and pytest
collects the same files through the ``toolhooks.testing`` plugin."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
