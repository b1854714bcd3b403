"""The starter policies are package files: the how-to includes each one (it does not copy it),
each loads with its examples checked, and an unknown name is an error naming the known ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.plugins.rules import STARTER_POLICIES, starter_policy, starter_policy_path

from .conftest import HOWTO, ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


@pytest.mark.parametrize("name", STARTER_POLICIES)
def test_the_howto_includes_the_package_file(name: str):
    path = starter_policy_path(name)
    assert path.is_file() and path.parent.name == "policies"
    included = f"```{{literalinclude}} ../../{path.relative_to(ROOT).as_posix()}"
    assert included in HOWTO.read_text(encoding="utf-8")
    assert starter_policy(name) == path.read_text(encoding="utf-8")


def test_the_package_data_ships_the_policies():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = data["tool"]["setuptools"]["package-data"]["toolhooks.plugins.rules"]
    assert "policies/*.toml" in shipped


@pytest.mark.parametrize("name", STARTER_POLICIES)
def test_each_starter_loads_as_a_config_with_its_examples_checked(name: str, project: Path):
    config = project / "toolhooks.toml"
    config.write_text(starter_policy(name))
    with Runtime(config=config) as rt:
        plugin = rt.get_plugin("rules")
        assert plugin is not None and plugin.rules is not None
        examples = sum(len(r.config.match) + len(r.config.not_match) for r in plugin.rules.rules)
        assert len(plugin.rules.rules) >= 5 and examples >= 2 * len(plugin.rules.rules)


def test_an_unknown_starter_names_the_known_ones():
    with pytest.raises(ValueError, match="'deny-list'") as raised:
        starter_policy("denylist")
    assert "no starter policy named 'denylist'" in str(raised.value)
