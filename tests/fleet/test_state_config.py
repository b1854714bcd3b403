"""``[state]``: where it comes from, what a bad value says."""

from __future__ import annotations

import pytest
from toolhooks import ConfigError, Runtime


def test_without_a_url_the_state_is_embedded():
    assert Runtime(config={}, load_entrypoints=False).state is None


def test_the_config_url_names_the_shared_state_and_the_password_is_never_shown():
    rt = Runtime(
        config={"state": {"url": "redis://u:pw@127.0.0.1:6379/3", "key_prefix": "app1"}},
        load_entrypoints=False,
    )
    assert rt.state is not None
    assert rt.state.label == "redis://u:***@127.0.0.1:6379/3"
    assert rt.state.key("limits", "x") == "app1:limits:x"
    assert "pw" not in repr(rt.state)


def test_the_environment_supplies_the_url_when_the_config_has_none(monkeypatch):
    monkeypatch.setenv("TOOLHOOKS_STATE_URL", "redis://127.0.0.1:6379/5")
    rt = Runtime(config={}, load_entrypoints=False)
    assert rt.state is not None and rt.state.url == "redis://127.0.0.1:6379/5"
    file_wins = Runtime(config={"state": {"url": "redis://other:6379/0"}}, load_entrypoints=False)
    assert file_wins.state is not None and file_wins.state.url == "redis://other:6379/0"


def test_runtimes_of_one_process_share_one_handle_per_url():
    config = {"state": {"url": "redis://127.0.0.1:6379/0"}}
    first = Runtime(config=config, load_entrypoints=False)
    second = Runtime(config=config, load_entrypoints=False)
    assert first.state is second.state


def test_an_unsupported_scheme_is_a_config_error():
    with pytest.raises(ConfigError, match=r"state url 'http://x': unsupported scheme 'http'"):
        Runtime(config={"state": {"url": "http://x"}}, load_entrypoints=False)


def test_a_bad_env_url_names_the_variable(monkeypatch):
    monkeypatch.setenv("TOOLHOOKS_STATE_URL", "postgres://db")
    with pytest.raises(ConfigError, match=r"\$TOOLHOOKS_STATE_URL: state url 'postgres://db'"):
        Runtime(config={}, load_entrypoints=False)


def test_an_unknown_state_key_is_rejected():
    with pytest.raises(ConfigError, match=r"unknown key 'host' in \[state\]"):
        Runtime(config={"state": {"host": "x"}}, load_entrypoints=False)
