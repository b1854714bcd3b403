"""A script splits into its simple commands across every list, pipeline and compound form."""

from __future__ import annotations

import pytest

from .helpers import analyse, argvs, programs

SPLITS = [
    ("a; b", ["a", "b"]),
    ("a && b", ["a", "b"]),
    ("a || b", ["a", "b"]),
    ("a | b", ["a", "b"]),
    ("a |& b", ["a", "b"]),
    ("a & b", ["a", "b"]),
    ("a\nb", ["a", "b"]),
    ("(a; b)", ["a", "b"]),
    ("{ a; b; }", ["a", "b"]),
    ("echo $(a)", ["a", "echo"]),
    ("echo `a`", ["a", "echo"]),
    ('echo "x$(a)y"', ["a", "echo"]),
    ("cat <(a) >(b)", ["a", "b", "cat"]),
    ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
    ("for x in 1; do a; done", ["a"]),
    ("while a; do b; done", ["a", "b"]),
    ("until a; do b; done", ["a", "b"]),
    ("case x in y) a;; *) b;; esac", ["a", "b"]),
    ("f() { a; }", ["a"]),
    ("function f { a; }", ["a"]),
    ("! a", ["a"]),
    ("x=$(a)", ["a"]),
    ("export X=$(a)", ["a"]),
    ("echo $(( $(a) + 1 ))", ["a", "echo"]),
    ("[[ -f $(a) ]]", ["a"]),
    ("for ((i=0; i<$(a); i++)); do b; done", ["a", "b"]),
    ("a <<EOF\n$(b)\nEOF", ["b", "a"]),
    ("a <<< $(b)", ["b", "a"]),
    ("echo ${X:-$(a)}", ["a", "echo"]),
    ("time a", ["time", "a"]),
    ("a 2>&1 | b > out", ["a", "b"]),
    ("# comment\na # trailing", ["a"]),
]


@pytest.mark.parametrize(("script", "expected"), SPLITS)
def test_every_simple_command_is_found(script, expected):
    result = analyse(script)
    assert result.opaque is None, result.opaque
    assert sorted(p for p in programs(script) if p is not None) == sorted(expected)


def test_a_heredoc_piped_to_the_next_command_keeps_the_pipe():
    result = analyse("cat <<EOF | tee out\nhello\nEOF\n")
    assert [c.program for c in result.commands] == ["cat", "tee"]


def test_a_heredoc_followed_by_and_runs_the_next_command():
    assert programs("cat <<EOF && rm x\nhi\nEOF\n") == ["cat", "rm"]


def test_words_that_touch_are_one_word():
    assert argvs("echo a'b'\"c\"$'d'") == [["echo", "abcd"]]


def test_a_function_called_later_is_walked_with_the_state_at_the_call():
    result = analyse("f() { rm -rf ./x; }\ncd /tmp\nf")
    rms = [c for c in result.commands if c.program == "rm"]
    assert "/tmp" in {c.cwd for c in rms}
