"""Every command (but `approvals`, tested with the queue) against bad files and bad flags
(issue #10 items 18, 25 and 26): one line naming the file or the flag, the documented exit code,
never a traceback."""

from __future__ import annotations

import pytest

COMMANDS = {
    "plugins": ("plugins",),
    "explain": ("explain",),
    "doctor": ("doctor",),
    "logs": ("logs",),
    "replay": ("replay", "t.jsonl"),
}


def bad_configs(cli):
    (cli.cwd / "a-directory").mkdir()
    (cli.cwd / "binary.toml").write_bytes(bytes(range(256)))
    (cli.cwd / "truncated.toml").write_text('[tools]\nprofile = "cod')
    return {
        "a-directory": "a-directory",
        "binary.toml": "binary.toml",
        "truncated.toml": "truncated.toml: invalid TOML",
        "missing.toml": "missing.toml",
    }


@pytest.mark.parametrize("command", list(COMMANDS))
def test_bad_config_files(cli, command):
    cli.jsonl("t.jsonl", [{"name": "read", "params": {"path": "a"}, "result": "x"}])
    for name, named in bad_configs(cli).items():
        result = cli(*COMMANDS[command], "--config", name)
        assert result.code == 1, (name, result.err)
        assert "Traceback" not in result.out + result.err
        assert named in result.out + result.err, (name, result.err)
        if command != "doctor":  # doctor reports every check; the others stop at the first
            assert len(result.err.strip().splitlines()) == 1, (name, result.err)
            assert result.err.startswith("toolhooks: error: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("replay", "a-directory"), "cannot read a-directory: Is a directory"),
        (("replay", "binary.jsonl"), "cannot read binary.jsonl: 'utf-8' codec can't decode"),
        (("replay", "missing.jsonl"), "cannot read missing.jsonl: No such file or directory"),
        (("replay", "t.jsonl", "--events", "a-directory"), "--events a-directory is a directory"),
        (("replay", "t.jsonl", "--events", "binary.jsonl/x"), "binary.jsonl is not a directory"),
        (("replay", "t.jsonl", "--artifacts", "binary.jsonl"), "--artifacts binary.jsonl is not"),
        (("logs", "--file", "a-directory"), "a-directory is a directory, not an event log"),
        (("logs", "--file", "binary.jsonl"), "binary.jsonl is not an event log"),
        (("logs", "--file", "missing.jsonl"), "no event log at missing.jsonl"),
    ],
)
def test_bad_data_files(cli, args, message):
    (cli.cwd / "a-directory").mkdir()
    (cli.cwd / "binary.jsonl").write_bytes(bytes(range(256)) * 4 + b"\n")
    cli.jsonl("t.jsonl", [{"name": "read", "params": {"path": "a"}, "result": "x"}])
    result = cli(*args)
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    assert message in result.err
    assert not list(cli.cwd.glob("a-directory/*"))  # nothing was written into it


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (("logs", "--folow"), "unrecognized arguments: --folow (did you mean --follow?)"),
        (("logs", "--jsn", "--folow=1"), "(did you mean --json?; did you mean --follow?)"),
        (("plugins", "--wide", "--alll"), "did you mean --all?"),
        (("explain", "--sendr", "id:bob"), "did you mean --sender?"),
        (("doctor", "--jason"), "did you mean --json?"),
        (("replay", "t.jsonl", "--fail-onn", "blocked"), "did you mean --fail-on?"),
        (("demo", "--jsonn"), "unrecognized arguments: --jsonn"),
        (("lgos",), "invalid choice: 'lgos'"),
        (("logs", "--since", "yesterday-ish"), "argument --since: 'yesterday-ish' is neither"),
        (("explain", "--origin", "extrnal"), "invalid choice: 'extrnal'"),
    ],
)
def test_bad_flags_are_usage_errors_with_a_suggestion(cli, args, hint):
    cli.jsonl("t.jsonl", [{"name": "read", "params": {"path": "a"}, "result": "x"}])
    result = cli(*args)
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    error = [line for line in result.err.splitlines() if ": error: " in line]
    assert len(error) == 1 and hint in error[0], result.err


def test_a_command_typo_is_suggested(cli):
    assert "did you mean 'logs'?" in cli("lgos").err
    assert "did you mean 'external'?" in cli("explain", "--origin", "extrnal").err


def test_explain_names_an_unknown_tag(cli):
    result = cli("explain", "--tool", "read", "--tag", "bogus")
    assert result.code == 0
    assert result.err.strip() == (
        "toolhooks: --tag 'bogus' is not a tag toolhooks knows "
        "(elevated, internal, read_only, side_effect): it changes no verdict"
    )
    assert cli("explain", "--tool", "read", "--tag", "side_effect").err == ""
