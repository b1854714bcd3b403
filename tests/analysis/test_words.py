"""Words as the shell sees them: quotes removed, escapes undone, known variables substituted."""

from __future__ import annotations

import pytest

from .helpers import HOME, analyse, argvs

WORDS = [
    ("\\rm x", ["rm", "x"]),
    ('"rm" x', ["rm", "x"]),
    ('r""m x', ["rm", "x"]),
    ("r''m x", ["rm", "x"]),
    ("'r'm x", ["rm", "x"]),
    ("$'\\x72\\x6d' x", ["rm", "x"]),
    ("$'\\162m' x", ["rm", "x"]),
    ("$'r\\u006d' x", ["rm", "x"]),
    ('$"rm" x', ["rm", "x"]),
    ("r\\\nm x", ["rm", "x"]),
    ("rm -r\\\nf x", ["rm", "-rf", "x"]),
    ('echo "a\\"b" \'c\\d\'', ["echo", 'a"b', "c\\d"]),
    ('echo "\\$x \\\\ \\`"', ["echo", "$x \\ `"]),
    ("echo a\\ b", ["echo", "a b"]),
    ("X=rm; $X -rf /", ["rm", "-rf", "/"]),
    ('X="rm -rf"; $X /', ["rm", "-rf", "/"]),
    ('X="rm -rf"; "$X" /', ["rm -rf", "/"]),
    ("X=r; ${X}m x", ["rm", "x"]),
    ("X=a; X+=b; echo $X", ["echo", "ab"]),
    ("echo $HOME ${HOME}/x ~ ~/y", ["echo", HOME, f"{HOME}/x", HOME, f"{HOME}/y"]),
    ("echo '~' \"~\"", ["echo", "~", "~"]),
    ("echo $PWD", ["echo", "/work/project"]),
    ("rm {-rf,/}", ["rm", "-rf", "/"]),
    ("echo a{b,c}d", ["echo", "abd", "acd"]),
    ("echo {1..3}", ["echo", "1", "2", "3"]),
    ("echo {a..c}", ["echo", "a", "b", "c"]),
    ("echo {01..03}", ["echo", "01", "02", "03"]),
    ("echo '{a,b}' \"{c,d}\"", ["echo", "{a,b}", "{c,d}"]),
    ("echo {a}", ["echo", "{a}"]),
    ("echo x{a,{b,c}}", ["echo", "xa", "xb", "xc"]),
    ("X=; rm -rf /$X", ["rm", "-rf", "/"]),
    ("unset X; rm -rf /$X", ["rm", "-rf", "/"]),
]


@pytest.mark.parametrize(("script", "expected"), WORDS)
def test_the_word_is_what_the_shell_passes(script, expected):
    assert argvs(script)[-1] == expected


UNKNOWN = [
    "rm $X",
    "rm ${X:-y}",
    "rm $(ls)",
    "rm `ls`",
    "rm $1",
    'rm "$@"',
    "rm $((1+2))",
    "X=$(cmd); rm $X",
    "rm ${#X}",
    "rm ${X[0]}",
]


@pytest.mark.parametrize("script", UNKNOWN)
def test_any_other_expansion_is_an_unknown_word(script):
    assert argvs(script)[-1][1] is None


def test_a_variable_assigned_in_a_branch_that_may_not_run_is_unknown():
    assert argvs("X=a; if c; then X=b; fi; rm $X")[-1] == ["rm", None]


def test_a_for_loop_gives_each_of_its_words():
    assert argvs("for d in /etc /var; do rm -rf $d; done")[-2:] == [
        ["rm", "-rf", "/etc"],
        ["rm", "-rf", "/var"],
    ]


def test_a_loop_that_changes_a_variable_sees_the_change_on_its_next_pass():
    found = argvs("X=ls; for i in 1 2; do $X -rf /; X=rm; done")
    assert [None, "-rf", "/"] in found or ["rm", "-rf", "/"] in found


def test_a_changed_ifs_makes_unquoted_expansions_unknown():
    assert argvs("IFS=,; X=a,b; rm $X")[-1] == ["rm", None]


def test_too_many_brace_words_are_one_unknown_word():
    assert argvs("echo {1..100000}")[-1] == ["echo", None]


def test_a_brace_expansion_in_the_program_position_is_opaque():
    # tree-sitter-bash cannot parse it (bash runs rm -rf /): a parse error is opaque.
    assert analyse("{rm,-rf,/}").opaque is not None
