"""``[approvals]``' team keys: bad input is a ConfigError naming the key, the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolhooks import ConfigError, load_config

PEOPLE = """
[approvals.people.alice]
groups = ["payments"]
token = "sha256:{digest}"

[approvals.people.bob]
groups = ["payments"]
slack = "U0BOB"
"""


def _load(tmp_path: Path, text: str):
    path = tmp_path / "toolhooks.toml"
    path.write_text(PEOPLE.format(digest="a" * 64) + text, encoding="utf-8")
    return load_config(path), path


def _error(tmp_path: Path, text: str) -> tuple[ConfigError, Path]:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    return caught.value, tmp_path / "toolhooks.toml"


def _line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    seen = 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(needle)


def test_a_good_team_config_loads(tmp_path: Path):
    config, _ = _load(
        tmp_path,
        """
[[approvals.policies]]
tools = ["pay"]
approvers = ["group:payments"]
quorum = 2
notify = ["ops"]

[approvals.notify.ops.webhook]
url = "http://127.0.0.1:9/hook"
secret = "s3cret-s3cret-s3cret"
""",
    )
    policy = config.approvals.policies[0]
    assert policy.quorum == 2 and policy.requester_may_approve is False
    assert policy.on_expiry == "deny"
    assert config.approvals.notify["ops"].webhook.secret == "s3cret-s3cret-s3cret"


def test_an_unknown_group_names_the_key_file_and_line(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[[approvals.policies]]
tools = ["pay"]
approvers = ["group:payments"]

[[approvals.policies]]
tools = ["deploy"]
approvers = ["group:oncall"]
""",
    )
    assert "unknown group 'oncall'" in str(error)
    assert error.key == "approvals.policies.1.approvers"
    assert error.file == str(path)
    assert error.line == _line_of(path, 'approvers = ["group:oncall"]')


def test_an_unknown_person_is_an_error(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[[approvals.policies]]
approvers = ["alice", "mallory"]
""",
    )
    assert "unknown person 'mallory'" in str(error) and error.line == _line_of(path, "mallory")


def test_a_quorum_larger_than_the_group_is_an_error(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[[approvals.policies]]
tools = ["pay"]
approvers = ["group:payments"]
quorum = 3
""",
    )
    assert "quorum 3 is larger than the 2 people" in str(error)
    assert error.key == "approvals.policies.0.quorum"
    assert error.line == _line_of(path, "quorum = 3")


def test_a_notify_target_missing_its_secret_is_an_error(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[approvals.notify.ops.webhook]
url = "http://127.0.0.1:9/hook"
""",
    )
    assert "secret" in str(error) and "Field required" in str(error)
    assert error.file == str(path) and error.line == _line_of(
        path, "[approvals.notify.ops.webhook]"
    )


def test_a_secret_from_an_unset_variable_is_an_error(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("TEAM_TEST_SLACK_SECRET", raising=False)
    error, path = _error(
        tmp_path,
        """
[approvals.notify.team.slack]
bot_token = "xoxb-local"
signing_secret = "env:TEAM_TEST_SLACK_SECRET"
channel = "C0PAY"
""",
    )
    assert "$TEAM_TEST_SLACK_SECRET, which is not set" in str(error)
    assert error.line == _line_of(path, "signing_secret")


def test_an_unknown_notify_target_and_a_plain_token_are_errors(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[[approvals.policies]]
approvers = ["alice"]
notify = ["pager"]
""",
    )
    assert "unknown notify target 'pager'" in str(error) and error.line == _line_of(path, "pager")
    path.write_text('[approvals.people.eve]\ntoken = "hunter2-hunter2"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="never as the token itself") as caught:
        load_config(path)
    assert caught.value.line == 2


def test_an_unknown_key_in_a_policy_says_the_nearest(tmp_path: Path):
    error, path = _error(
        tmp_path,
        """
[[approvals.policies]]
approvers = ["alice"]
qorum = 1
""",
    )
    assert "unknown key 'qorum'" in str(error) and "did you mean 'quorum'" in str(error)
    assert error.line == _line_of(path, "qorum")


def test_every_toml_block_of_the_how_to_is_a_valid_config(tmp_path: Path, monkeypatch):
    """The how-to's fragments that no example runs (webhook, Slack) are valid configs too."""
    import re

    page = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "approvals-for-teams.md"
    blocks = re.findall(r"^```toml\n(.*?)^```$", page.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) == 4
    for name in ("TOOLHOOKS_WEBHOOK_SECRET", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.setenv(name, "a-secret-for-the-docs-test")
    for index, text in enumerate(blocks):
        path = tmp_path / f"block-{index}.toml"
        path.write_text(text, encoding="utf-8")
        load_config(path)
