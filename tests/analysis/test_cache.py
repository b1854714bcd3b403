"""Analyses are cached per (text, cwd, home), bounded, and never when the file system decided."""

from __future__ import annotations

from toolhooks.analysis import analyse_script, clear_cache
from toolhooks.analysis._analyse import CACHE_SIZE, _cache


def test_the_same_script_gives_the_same_record_from_the_cache():
    clear_cache()
    first = analyse_script("git push --force", cwd="/a", home="/h")
    assert analyse_script("git push --force", cwd="/a", home="/h") is first
    assert analyse_script("git push --force", cwd="/b", home="/h") is not first


def test_the_cache_is_bounded():
    clear_cache()
    for index in range(CACHE_SIZE + 50):
        analyse_script(f"echo {index}", cwd="/", home="/")
    assert len(_cache) == CACHE_SIZE


def test_a_glob_is_matched_again_on_each_call(tmp_path):
    clear_cache()
    first = analyse_script("cat *.env", cwd=str(tmp_path), home="/h")
    assert first.commands[0].argv[1].alternatives == ()
    (tmp_path / "a.env").write_text("")
    again = analyse_script("cat *.env", cwd=str(tmp_path), home="/h")
    assert again.commands[0].argv[1].alternatives == (str(tmp_path / "a.env"),)


def test_a_cd_is_checked_again_on_each_call(tmp_path):
    clear_cache()
    script = f"cd {tmp_path}/build && rm -rf src"
    first = analyse_script(script, cwd=str(tmp_path), home="/h")
    assert len(first.commands[-1].cwds) == 2  # build does not exist: the cd may fail
    (tmp_path / "build").mkdir()
    again = analyse_script(script, cwd=str(tmp_path), home="/h")
    assert again.commands[-1].cwds == (str(tmp_path / "build"),)
