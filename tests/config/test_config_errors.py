"""Config mistakes point at the key's own line, name the table it is really in, and suggest
the nearest key (issue #10 item 26, the config part)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from toolhooks import ConfigError, Runtime


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "toolhooks.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        rt = Runtime(config=path)
        try:
            rt.call({"name": "x"})
        finally:
            rt.close()
    message = str(raised.value)
    assert message.startswith(f"{path}:"), message
    return message[len(f"{path}:") :]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '# a comment\n[tools]\nallow = ["read"]\nprofil = "coding"\n',
            "4: unknown key 'profil' in [tools] (did you mean 'profile'?) (at tools.profil)",
        ),
        (
            "[tools]\n\n[tools.elevated]\nallow_from = []\nenabeld = true\n",
            "5: unknown key 'enabeld' in [tools.elevated] (did you mean 'enabled'?) "
            "(at tools.elevated.enabeld)",
        ),
        (
            "[plugins.loop_detection]\nwindow = 30\nwarning_threshhold = 3\n",
            "3: unknown key 'warning_threshhold' in [plugins.loop_detection] "
            "(did you mean 'warning_threshold'?) (at plugins.loop_detection.warning_threshhold)",
        ),
        (
            '[plugins.event_log]\npath = "x.jsonl"\nmdoe = "audit"\n',
            "3: unknown key 'mdoe' in [plugins.event_log] (did you mean 'mode'?) "
            "(at plugins.event_log.mdoe)",
        ),
        (
            '[plugins.policy]\nprofile = "coding"\n',
            "2: 'profile' does not go in [plugins.policy]: policy reads its options from "
            "[tools]; move it there (at plugins.policy.profile)",
        ),
        (
            '[approvals]\nrout = "queue"\n',
            "2: unknown key 'rout' in [approvals] (did you mean 'route'?) (at approvals.rout)",
        ),
        (
            '[plugins]\nonyl = ["policy"]\n',
            "2: unknown key 'onyl' in [plugins] (did you mean 'only'?) (expected only, disable, "
            "on_load_error, lock, on_unlocked or a [plugins.<name>] table) (at plugins.onyl)",
        ),
        (
            '[tool]\nprofile = "coding"\n',
            "1: unknown top-level key 'tool' (did you mean 'tools'?) (expected plugins, tools, "
            "approvals, state, agents, rules)",
        ),
        (
            "[plugins.result_budget]\nfloor = 10\ntiers = [\n  { min_tokens = 0, max_chars = 9, "
            "min_token = 1 },\n]\n",
            "3: unknown key 'min_token' in [plugins.result_budget.tiers.0] "
            "(did you mean 'min_tokens'?) (at plugins.result_budget.tiers.0.min_token)",
        ),
    ],
)
def test_a_config_mistake_names_its_line_its_table_and_the_nearest_key(
    tmp_path: Path, text: str, expected: str
) -> None:
    assert _error(tmp_path, text) == expected


def test_the_agents_table_is_strict_and_names_the_nearest_key(tmp_path) -> None:
    from toolhooks import load_config

    path = tmp_path / "toolhooks.toml"
    path.write_text('[agents]\nsender = "ci"\nsendr = "x"\n')
    with pytest.raises(ConfigError, match=r"toml:3: unknown key 'sendr' in \[agents\].*'sender'"):
        load_config(path)
    path.write_text('[agents]\non_error = "maybe"\n')
    with pytest.raises(ConfigError, match=r"agents\.on_error"):
        load_config(path)
    assert load_config({"agents": {"sender": "ci"}}).agents.sender == "ci"


@pytest.mark.parametrize("opening", ["[", "{a = "])
def test_a_config_nested_thousands_deep_is_a_config_error(tmp_path, opening) -> None:
    # tomllib reads arrays and inline tables by recursion: this exhausted the stack with a
    # RecursionError traceback instead of naming the file.
    path = tmp_path / "toolhooks.toml"
    path.write_text("x = " + opening * 3000)
    with pytest.raises(ConfigError, match="nested too deeply to read") as raised:
        Runtime(config=path)
    assert str(path) in str(raised.value)


def test_the_command_says_so_without_a_traceback(tmp_path) -> None:
    path = tmp_path / "toolhooks.toml"
    path.write_text("x = " + "[" * 3000)
    result = subprocess.run(
        [sys.executable, "-m", "toolhooks", "plugins", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    said = result.stdout + result.stderr
    assert result.returncode == 1
    assert "Traceback" not in said and "RecursionError" not in said
    assert "nested too deeply to read" in said
