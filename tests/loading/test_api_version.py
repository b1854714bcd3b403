"""A plugin declares the toolhooks it was written for by its dependency range on toolhooks; a
range that leaves out the running major version is refused at load, naming both versions."""

from __future__ import annotations

from importlib import metadata

import pytest
from toolhooks import PluginLoadError, Runtime
from toolhooks.loading._api_version import admits_major, toolhooks_ranges

from .conftest import PLUGIN

RUNNING = metadata.version("toolhooks")
MAJOR = int(RUNNING.split(".")[0])


def test_a_plugin_for_another_major_is_refused_before_import(site, tmp_path):
    marker = tmp_path / "imported"
    source = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n{PLUGIN}"
    wanted = f"toolhooks>={MAJOR + 1},<{MAJOR + 2}"
    site.install("future-plugin", {"future_mod.py": source}, {"future": "future_mod:Plugin"},
                 requires=("pydantic>=2", wanted))  # fmt: skip
    with pytest.raises(PluginLoadError) as refused:
        Runtime(config={"plugins": {"only": ["future"]}})
    message = str(refused.value)
    assert f"'{wanted}'" in message and f"toolhooks {RUNNING} is installed" in message
    assert "future = future_mod:Plugin" in message and "future-plugin 1.0" in message
    assert refused.value.distribution == "future-plugin"
    assert not marker.exists()
    # on_load_error = "skip" lists it with the same reason instead
    rt = Runtime(config={"plugins": {"only": ["future"], "on_load_error": "skip"}})
    (row,) = [info for info in rt.plugins(include_disabled=True) if info.name == "future"]
    assert not row.enabled and f"toolhooks {RUNNING} is installed" in (row.reason or "")


@pytest.mark.parametrize(
    "requires",
    [(), ("toolhooks",), (f"toolhooks>={MAJOR}",), (f"toolhooks (<{MAJOR + 1})",),
     (f"toolhooks>={MAJOR + 5}; extra == 'old'", f"toolhooks~={MAJOR}.0")],
)  # fmt: skip
def test_a_compatible_range_or_none_loads(site, requires):
    site.install("fine-plugin", {"fine_mod.py": PLUGIN}, {"fine": "fine_mod:Plugin"},
                 requires=requires)  # fmt: skip
    rt = Runtime(config={"plugins": {"only": ["fine"]}})
    assert [info.name for info in rt.plugins()] == ["fine"]


def test_an_unreadable_range_is_refused(site):
    site.install("odd-plugin", {"odd_mod.py": PLUGIN}, {"odd": "odd_mod:Plugin"},
                 requires=("toolhooks>=one",))  # fmt: skip
    with pytest.raises(PluginLoadError, match="'toolhooks>=one' cannot be read"):
        Runtime(config={"plugins": {"only": ["odd"]}})


@pytest.mark.parametrize(
    ("spec", "major", "admitted"),
    [
        (">=0.1", 0, True), (">=1,<2", 0, False), (">=1,<2", 1, True), (">=0.1,<1", 1, False),
        ("~=0.1", 0, True), ("~=0.1", 1, False), ("~=1.4.2", 1, True), ("==1.*", 0, False),
        ("==0.*", 0, True), ("!=0.*", 0, False), ("!=0.*", 1, True), ("<1", 1, False),
        ("<=1", 1, True), (">1", 1, True), (">=2", 1, False), ("", 3, True),
        ("==0.1.0", 0, True), (">=0.2,<0.1", 0, False), ("<1.0.0", 1, False), ("==1.0+local", 1, True),
    ],
)  # fmt: skip
def test_admits_major(spec, major, admitted):
    assert admits_major(spec, major) is admitted


def test_toolhooks_ranges_reads_requires_dist():
    found = toolhooks_ranges(["toolhooks>=0.1", "pydantic<3,>=2.5", "toolhooks (>=1,<2) ; extra == 'x'",
                              "Toolhooks[web]<3", "toolhooks @ https://example.invalid/t.whl",
                              "toolhooks-extra>=1"])  # fmt: skip
    assert found == [">=0.1", ">=1,<2", "<3", ""]
