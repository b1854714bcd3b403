"""Issue #32 item 2: a config file (or its folder) that another user can change is not ours.
Found configs are ignored with a warning naming the file and why; a config named on purpose
($TOOLHOOKS_CONFIG, --config) that others can write is an error. Real files, real modes and
owners (chown needs root: those tests skip, saying so, elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolhooks import ConfigError
from toolhooks.agents._project import ProjectError, find_project
from toolhooks.config._settings import discover

CONFIG = '[tools]\ndeny = ["web_fetch"]\n'


def need_root() -> None:
    if os.getuid() != 0:
        pytest.skip("needs root: another user's file is made with chown")


@pytest.fixture(autouse=True)
def _no_config_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLHOOKS_CONFIG", raising=False)


@pytest.mark.parametrize("mode", [0o666, 0o646])
def test_a_config_others_can_write_is_ignored_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    path = tmp_path / "toolhooks.toml"
    path.write_text(CONFIG)
    path.chmod(mode)
    assert discover(tmp_path) == (None, ())
    said = capsys.readouterr().err
    assert f"ignoring the config {path}" in said and "others can write it" in said
    project = find_project(str(tmp_path), {})
    assert project.config is None
    assert project.warnings == (f"ignoring the config {path}: others can write it "
                                f"(mode {mode:o}; chmod go-w to use it)",)  # fmt: skip


def test_another_users_config_is_ignored_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_root()
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.toolhooks.tools]\ndeny = ['web_fetch']\n")
    os.chown(path, 65534, 65534)
    assert discover(tmp_path) == (None, ())
    assert "belongs to another user (uid 65534)" in capsys.readouterr().err
    assert find_project(str(tmp_path), {}).config is None


def test_the_walk_up_skips_an_ignored_config_and_finds_the_next(tmp_path: Path) -> None:
    ours = tmp_path / "toolhooks.toml"
    ours.write_text(CONFIG)
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o777)  # no sticky bit: anyone may replace what is in it
    (loose / "toolhooks.toml").write_text(CONFIG)
    deeper = loose / "project"
    deeper.mkdir()
    project = find_project(str(deeper), {})
    assert project.config == str(ours)
    [warning] = project.warnings
    assert "others can replace it: its folder is writable by them (mode 777)" in warning


def test_a_config_of_ours_in_a_sticky_shared_folder_is_used(tmp_path: Path) -> None:
    shared = tmp_path / "tmp-like"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "toolhooks.toml").write_text(CONFIG)
    assert find_project(str(shared), {}).config == str(shared / "toolhooks.toml")
    assert discover(shared)[0] == shared / "toolhooks.toml"


def test_group_write_for_the_users_own_private_group_is_not_others(tmp_path: Path) -> None:
    import grp
    import pwd

    me = pwd.getpwuid(os.getuid())
    group = grp.getgrgid(me.pw_gid)
    if group.gr_name != me.pw_name or set(group.gr_mem) - {me.pw_name}:
        pytest.skip(f"{me.pw_name}'s primary group is not a private group of the same name")
    path = tmp_path / "toolhooks.toml"
    path.write_text(CONFIG)
    os.chown(path, -1, me.pw_gid)
    path.chmod(0o664)  # what umask 002 makes
    assert discover(tmp_path)[0] == path


def test_a_named_config_others_can_write_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "named.toml"
    path.write_text(CONFIG)
    path.chmod(0o666)
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(path))
    with pytest.raises(ConfigError, match="others can write it"):
        discover(tmp_path)
    with pytest.raises(ProjectError, match=r"\$TOOLHOOKS_CONFIG names .* refused: others can"):
        find_project(str(tmp_path), os.environ)
    with pytest.raises(ProjectError, match="--config names"):
        find_project(str(tmp_path), {}, config=str(path))


def test_a_named_config_of_another_user_is_their_trust_to_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_root()
    path = tmp_path / "named.toml"
    path.write_text(CONFIG)
    os.chown(path, 65534, 65534)
    monkeypatch.setenv("TOOLHOOKS_CONFIG", str(path))
    assert discover(tmp_path)[0] == path
    assert find_project(str(tmp_path), os.environ).config == str(path)
