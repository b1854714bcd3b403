"""What is built-in (issue #32 items 4 and 14): the entry points of the toolhooks distribution
whose files hold the imported ``toolhooks`` package; never a distribution that only calls itself
``toolhooks``, and never whatever an edited entry-point cache says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolhooks import Runtime
from toolhooks.loading import _scan_cache
from toolhooks.loading._entry_points import find_entry_points

from .conftest import PLUGIN

REAL_POLICY = "toolhooks.plugins.policy:PolicyPlugin"


def marking(marker: Path) -> str:
    return f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n{PLUGIN}"


def blocked_exec(runtime: Runtime) -> tuple[str, str | None]:
    outcome = runtime.call({"name": "exec", "params": {"command": "id"}}, execute=lambda p: "ran")
    return outcome.status, outcome.blocked_by


@pytest.fixture
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_scan_cache.CACHE_ENV, "")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(_scan_cache.CACHE_ENV, str(folder))
    monkeypatch.setattr(_scan_cache, "SETTLE_NS", 0)  # the test's site folder is new: keep it
    return folder


@pytest.mark.parametrize("autoload", ["on", "off"])
def test_a_distribution_named_toolhooks_is_not_built_in(
    site, no_cache, tmp_path, monkeypatch, autoload
):
    """It comes first on sys.path, so importlib.metadata lists it instead of the real one (one
    distribution per name): on main its `policy` replaced the fence and loaded with autoload
    disabled, and its `extra` loaded as a built-in."""
    marker = tmp_path / "imported"
    site.install(
        "toolhooks",
        {"fake_policy.py": marking(marker)},
        {"policy": "fake_policy:Plugin", "extra": "fake_policy:Plugin"},
        version="9.9",
    )
    if autoload == "off":
        monkeypatch.setenv("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(tmp_path)
    config = {"plugins": {"only": ["policy"]}, "tools": {"profile": "minimal"}}
    with Runtime(config=config) as rt:
        assert blocked_exec(rt) == ("blocked", "policy")
        rows = [(p.name, p.version, p.source, p.enabled) for p in rt.plugins(include_disabled=True)]
        fake = next(p for p in rt.plugins(include_disabled=True) if p.version == "9.9")
        handlers = rt.handlers("before_tool_call")
    assert not marker.exists()
    assert ("policy", "0.1.0", "built-in", True) in rows
    assert all(row[1] != "9.9" or row[2] == "entry point" for row in rows)
    assert [h.plugin for h in handlers] == ["policy"]
    # The refusal names both distributions, told apart by where they are.
    assert fake.enabled is False and fake.reason is not None
    assert "duplicate plugin name 'policy'" in fake.reason
    assert "distribution toolhooks 0.1.0 at " in fake.reason
    assert f"distribution toolhooks 9.9 at {site.root / 'toolhooks-9.9.dist-info'}" in fake.reason


def test_with_autoload_disabled_only_the_real_builtins_load(site, no_cache, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    site.install("toolhooks", {"fake_extra.py": marking(marker)}, {"extra": "fake_extra:Plugin"})
    monkeypatch.setenv("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(tmp_path)
    with Runtime(config={"plugins": {"only": ["extra", "policy"]}}) as rt:
        loaded = [(p.name, p.source) for p in rt.plugins()]
        skipped = {p.name: p.reason for p in rt.plugins(include_disabled=True) if not p.enabled}
    assert not marker.exists()
    assert loaded == [("policy", "built-in")]
    assert skipped["extra"] is not None and skipped["extra"].startswith("third-party autoload")


def kept(folder: Path) -> tuple[Path, dict]:
    (found,) = folder.glob("entry-points-*.json")
    return found, json.loads(found.read_text())


def drop_policy(rows: list[dict]) -> list[dict]:
    return [row for row in rows if row["name"] != "policy"]


def drop_every_builtin(rows: list[dict]) -> list[dict]:
    return [row for row in rows if not row["builtin"]]


def repoint_policy(rows: list[dict]) -> list[dict]:
    for row in rows:
        if row["name"] == "policy":
            row["value"] = "kept_mod:Plugin"
    return rows


def promote_a_third_party(rows: list[dict]) -> list[dict]:
    rows = drop_policy(rows)
    for row in rows:
        if row["name"] == "kept":
            row.update(name="policy", builtin=True)
    return rows


EDITS = [drop_policy, drop_every_builtin, repoint_policy, promote_a_third_party]


@pytest.mark.parametrize("edit", EDITS, ids=[edit.__name__ for edit in EDITS])
def test_an_edited_entry_point_cache_never_changes_a_builtin(
    site, cache, tmp_path, monkeypatch, edit
):
    marker = tmp_path / "imported"
    site.install("kept-plugin", {"kept_mod.py": marking(marker)}, {"kept": "kept_mod:Plugin"})
    before, _ = find_entry_points()
    builtins = {(c.name, c.value) for c in before if c.builtin}
    assert ("policy", REAL_POLICY) in builtins
    path, data = kept(cache)
    data["rows"] = edit(data["rows"])
    path.write_text(json.dumps(data))

    after, _ = find_entry_points()
    assert {(c.name, c.value) for c in after if c.builtin} == builtins
    assert not any(c.builtin for c in after if c.value == "kept_mod:Plugin")
    monkeypatch.chdir(tmp_path)
    with Runtime(config={"plugins": {"disable": ["kept"]}, "tools": {"profile": "minimal"}}) as rt:
        assert blocked_exec(rt) == ("blocked", "policy")
    assert not marker.exists()


def test_the_cache_is_still_used_for_third_party_rows(site, cache):
    """The fix reads the built-ins again, not the whole scan: a kept row is still used."""
    site.install("kept-plugin", {"kept_mod.py": PLUGIN}, {"kept": "kept_mod:Plugin"})
    find_entry_points()
    path, data = kept(cache)
    for row in data["rows"]:
        if row["name"] == "kept":
            row["version"] = "from-the-cache"
    path.write_text(json.dumps(data))
    after, _ = find_entry_points()
    assert next(c for c in after if c.name == "kept").version == "from-the-cache"
    assert any(c.builtin and c.name == "policy" for c in after)


def stale_toolhooks_metadata(tmp_path, monkeypatch):
    """A `toolhooks.egg-info` with the running toolhooks' entry points, first on sys.path (what
    a build leaves in a checkout); its folder."""
    from importlib import metadata

    real = metadata.distribution("toolhooks").read_text("entry_points.txt") or ""
    stale = tmp_path / "checkout" / "toolhooks.egg-info"
    stale.mkdir(parents=True)
    (stale / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: toolhooks\nVersion: 0.1.0\n")
    (stale / "entry_points.txt").write_text(real)
    monkeypatch.syspath_prepend(str(stale.parent))
    return stale


def test_a_stale_copy_of_toolhooks_metadata_first_on_the_path_keeps_the_builtins(
    site, no_cache, tmp_path, monkeypatch
):
    """A `toolhooks.egg-info` left in the working folder by a build: the same entry points and
    name, earlier on sys.path. It is not the running toolhooks: the built-ins stay built-in."""
    stale = stale_toolhooks_metadata(tmp_path, monkeypatch)
    candidates, duplicates = find_entry_points()
    policy = next(c for c in candidates if c.name == "policy")
    assert policy.builtin and policy.value == REAL_POLICY and policy.folder != str(stale)
    assert not duplicates  # the same entry points: nothing to refuse, nothing to say
    monkeypatch.setenv("TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(tmp_path)
    with Runtime(config={"tools": {"profile": "minimal"}}) as rt:
        assert blocked_exec(rt) == ("blocked", "policy")


def test_a_stale_copy_behind_a_squatter_is_not_listed_as_a_refused_builtin(
    site, no_cache, tmp_path, monkeypatch
):
    """A squatter offering `policy` first on sys.path, then a stale `toolhooks.egg-info` (what
    `pip install -e .` leaves in a fresh checkout, on the path when tests run from it): the copy
    was listed as a refused `policy` of distribution `toolhooks`, shadowing the running one in
    `plugins --all` (found by the README's test command in a fresh clone)."""
    stale = stale_toolhooks_metadata(tmp_path, monkeypatch)
    site.install("squatter", {"squat.py": PLUGIN}, {"policy": "squat:Plugin"})
    monkeypatch.syspath_prepend(str(site.root))  # the squatter first, then the copy
    candidates, duplicates = find_entry_points()
    policy = next(c for c in candidates if c.name == "policy")
    assert policy.builtin and policy.value == REAL_POLICY and policy.folder != str(stale)
    assert [(c.name, c.distribution) for c, _ in duplicates] == [("policy", "squatter")]
    monkeypatch.chdir(tmp_path)
    with Runtime(config={"tools": {"profile": "minimal"}}) as rt:
        infos = {(p.name, p.distribution): p for p in rt.plugins(include_disabled=True)}
        assert blocked_exec(rt) == ("blocked", "policy")
    assert infos[("policy", "toolhooks")].enabled is True
    assert infos[("policy", "squatter")].enabled is False
