"""``off_until_configured = True`` on a plugin class: installed, it joins no runtime whose config
gives its table no key (its handler is in no chain), and loads as usual once the table has one
(toolhooks-cedar relies on it: an installed Cedar plugin without policies costs a call nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.loading import _scan_cache

from .conftest import Site

QUIET = """\
from pydantic import BaseModel, ConfigDict
from toolhooks import hookimpl


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int = 1


class Quiet:
    off_until_configured = True
    Config = Settings

    def __init__(self, config=None):
        self.config = config

    @hookimpl
    def before_tool_call(self, call):
        return {"block": True, "block_reason": f"quiet level {self.config.level}"}
"""


@pytest.fixture
def installed(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_scan_cache.CACHE_ENV, "")
    site.install("quiet-plugin", {"quiet_plugin.py": QUIET}, {"quiet": "quiet_plugin:Quiet"})


def _exec(rt: Runtime) -> tuple[str, str | None]:
    out = rt.call({"name": "exec", "params": {"command": "id"}}, execute=lambda p: "ran")
    return out.status, out.reason


def test_without_keys_it_is_not_loaded_and_says_why(installed: None) -> None:
    with Runtime(config={"tools": {"profile": "full"}}) as rt:
        assert "quiet" not in [h.plugin for h in rt.handlers("before_tool_call", "exec")]
        (row,) = [p for p in rt.plugins(include_disabled=True) if p.name == "quiet"]
        assert row.enabled is False
        assert "off until configured" in (row.reason or "")
        assert _exec(rt) == ("ok", None)


def test_a_table_with_keys_loads_it(installed: None) -> None:
    config = {"tools": {"profile": "full"}, "plugins": {"quiet": {"level": 3}}}
    with Runtime(config=config) as rt:
        assert _exec(rt) == ("blocked", "quiet level 3")


def test_only_framework_keys_keep_it_off_and_the_table_is_not_an_unknown_name(
    installed: None,
) -> None:
    config = {"tools": {"profile": "full"}, "plugins": {"quiet": {"priority": 5}}}
    with Runtime(config=config) as rt:
        assert _exec(rt) == ("ok", None)


def test_registered_by_hand_it_always_loads(installed: None, tmp_path: Path) -> None:
    import quiet_plugin  # type: ignore[import-not-found]

    with Runtime(config={"tools": {"profile": "full"}}, load_entrypoints=False) as rt:
        rt.register(quiet_plugin.Quiet)
        assert _exec(rt) == ("blocked", "quiet level 1")
