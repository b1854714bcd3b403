"""``toolhooks init``: the starter policy written and checked, never over a file that differs
without --force, idempotent, the unattended allow list on request."""

from __future__ import annotations

import pytest
from toolhooks.cli import main
from toolhooks.plugins.rules import starter_policy


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)
    return tmp_path


def test_an_empty_project_gets_the_deny_list_checked(project, capsys):
    assert main(["init"]) == 0
    assert (project / "toolhooks.toml").read_text() == starter_policy("deny-list")
    out = capsys.readouterr().out
    assert "wrote (the deny-list starter policy" in out
    assert "examples decide as written" in out
    assert "toolhooks explain --call" in out


def test_a_second_run_changes_nothing(project, capsys):
    assert main(["init"]) == 0
    before = (project / "toolhooks.toml").stat().st_mtime_ns
    assert main(["init"]) == 0
    assert "unchanged" in capsys.readouterr().out
    assert (project / "toolhooks.toml").stat().st_mtime_ns == before


def test_an_existing_config_is_shown_as_a_difference_and_kept(project, capsys):
    mine = '[tools]\nprofile = "coding"\n'
    (project / "toolhooks.toml").write_text(mine)
    assert main(["init"]) == 1
    captured = capsys.readouterr()
    assert '-profile = "coding"' in captured.out and "+[[rules]]" in captured.out
    assert "--force replaces it" in captured.err
    assert (project / "toolhooks.toml").read_text() == mine
    assert main(["init", "--force"]) == 0
    assert (project / "toolhooks.toml").read_text() == starter_policy("deny-list")


def test_unattended_writes_the_allow_list(project, capsys):
    assert main(["init", "--unattended"]) == 0
    text = (project / "toolhooks.toml").read_text()
    assert text == starter_policy("allow-list")
    assert 'unmatched = "ask"' in text
    assert "the allow-list starter policy" in capsys.readouterr().out


def test_a_folder_that_is_not_there_is_one_line(project, capsys):
    assert main(["init", "--dir", str(project / "missing")]) == 1
    assert "is not a folder" in capsys.readouterr().err
