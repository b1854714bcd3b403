"""Random scripts never crash the analysis: each gives a Script, opaque or not, and no internal
error is hidden behind an opaque reason."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolhooks.analysis import analyse_argv, command_hosts, command_paths

from .helpers import analyse

PIECES = st.sampled_from(
    [
        "rm",
        "-rf",
        "/",
        " ",
        " ",
        "\n",
        ";",
        "&&",
        "||",
        "|",
        "&",
        "(",
        ")",
        "{",
        "}",
        "$(",
        "`",
        "'",
        '"',
        "\\",
        "$",
        "${",
        "X",
        "=",
        "<",
        ">",
        "<<",
        "EOF",
        "<(",
        ">(",
        "*",
        "?",
        "[",
        "]",
        "~",
        "..",
        "sudo",
        "bash",
        "-c",
        "env",
        "-S",
        "find",
        "-exec",
        "{}",
        "\\;",
        "xargs",
        "if",
        "then",
        "fi",
        "for",
        "in",
        "do",
        "done",
        "case",
        "esac",
        "cd",
        "git",
        "-C",
        "ssh",
        "user@host:",
        "http://a\\@b/",
        "%41",
        "$'\\x41'",
        "\u200b",
        "\uff52",
        "IFS",
        "alias",
        "eval",
        "#",
        ",",
        "{a,b}",
        "{1..3}",
        "2>&1",
        "0<",
        "\t",
    ]
)
SCRIPTS = st.lists(PIECES, max_size=40).map("".join)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(SCRIPTS)
def test_a_random_script_is_answered(script):
    result = analyse(script)
    assert "analyser could not read" not in (result.opaque or ""), result.opaque
    for command in result.commands:
        command_paths(command)
        command_hosts(command)


@SETTINGS
@given(st.text(max_size=200))
def test_any_text_is_answered(script):
    result = analyse(script)
    assert "analyser could not read" not in (result.opaque or ""), result.opaque


@SETTINGS
@given(st.lists(st.one_of(PIECES, st.text(max_size=12)), min_size=1, max_size=12))
def test_a_random_argv_is_answered(argv):
    result = analyse_argv(argv, cwd="/work/project", home="/home/agent")
    assert "analyser could not read" not in (result.opaque or ""), result.opaque
