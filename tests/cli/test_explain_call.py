"""Issue #23 item 3: ``toolhooks explain --call JSON``, one call's decision trail, every
before_tool_call handler's answer in order, nothing run."""

from __future__ import annotations

import json


def test_the_trail_names_each_handler_in_order(cli):
    config = cli.cwd / "toolhooks.toml"
    config.write_text(
        '[tools]\nprofile = "coding"\n[plugins]\nonly = ["policy", "loop_detection"]\n'
    )
    result = cli("explain", "--config", str(config), "--json",
                 "--call", '{"name": "message", "params": {"to": "ops"}}')  # fmt: skip
    assert result.code == 0, result.err
    found = json.loads(result.out)
    assert found["status"] == "blocked" and found["blocked_by"] == "policy"
    assert [(s["plugin"], s["answer"].split(":")[0]) for s in found["steps"]] == [
        ("policy", "block"),
        ("loop_detection", "not reached (an earlier handler blocked)"),
    ]
    allowed = json.loads(
        cli(
            "explain",
            "--config",
            str(config),
            "--json",
            "--call",
            '{"name": "read", "params": {"path": "a"}}',
        ).out
    )
    assert allowed["status"] == "allowed"
    assert [s["answer"] for s in allowed["steps"]] == ["no opinion", "no opinion"]


def test_an_invalid_call_reaches_no_handler(cli):
    config = cli.cwd / "toolhooks.toml"
    config.write_text('[plugins]\nonly = ["policy"]\n')
    call = '{"name": "read", "sender": {"id": "a", "is_owner": "false"}}'
    result = cli("explain", "--config", str(config), "--call", call)
    assert result.code == 0 and "blocked by toolhooks" in result.out
    assert "sender.is_owner" in result.out and "not reached (the call is invalid)" in result.out


def test_bad_json_is_a_usage_error_without_a_traceback(cli):
    for text in ("[1", "[1, 2]", '"x"'):
        result = cli("explain", "--call", text)
        assert result.code == 2 and "--call" in result.err and "Traceback" not in result.err
