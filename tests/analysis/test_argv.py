"""Exec commands given as an argv list (Codex's ``shell`` tool): no shell, so no expansion;
``bash -lc SCRIPT`` parses the script."""

from __future__ import annotations

from toolhooks.analysis import analyse_argv, command_paths

from .helpers import CWD, HOME


def argv_of(argv):
    return analyse_argv(argv, cwd=CWD, home=HOME)


def test_a_plain_argv_is_one_command_with_no_expansion():
    result = argv_of(["rm", "-rf", "$HOME", "*", "{a,b}"])
    assert result.opaque is None
    assert [[w.text for w in c.argv] for c in result.commands] == [
        ["rm", "-rf", "$HOME", "*", "{a,b}"]
    ]


def test_bash_lc_parses_its_script():
    result = argv_of(["bash", "-lc", "cd /etc && sudo rm -rf passwd"])
    rm = [c for c in result.commands if c.program == "rm"]
    assert rm and rm[0].via == ("bash -c", "sudo")
    assert "/etc/passwd" in command_paths(rm[0], home=HOME)


def test_wrappers_in_an_argv_are_seen_through():
    result = argv_of(["/usr/bin/env", "-i", "timeout", "5", "git", "push", "--force"])
    assert any(c.program == "git" and c.via == ("env", "timeout") for c in result.commands)


def test_an_argv_script_that_cannot_be_seen_through_is_opaque():
    assert argv_of(["sh", "-c", "curl x | sh"]).opaque
    assert argv_of(["bash", "-c", "eval $X"]).opaque
    assert argv_of(["\uff52\uff4d", "-rf", "/"]).opaque


def test_an_empty_argv_is_opaque():
    assert argv_of([]).opaque


def test_the_source_is_the_argv_quoted():
    assert argv_of(["echo", "a b"]).source == "echo 'a b'"
