"""The corpus (corpus.toml): dangerous commands in disguise and their benign look-alikes, each
with the simple commands, paths, hosts and opaqueness the analysis must give."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from toolhooks.analysis import command_hosts, command_paths

from .helpers import HOME, analyse

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CASES = tomllib.loads((Path(__file__).parent / "corpus.toml").read_text(encoding="utf-8"))["case"]


def test_the_corpus_holds_at_least_150_commands():
    assert len(CASES) >= 150
    assert len({case["script"] for case in CASES}) == len(CASES), "a script is listed twice"


def keys(script):
    return [[c.program, *(w.text for w in c.argv[1:])] for c in script.commands]


def has(found, prefix):
    return any(k[: len(prefix)] == prefix for k in found)


@pytest.mark.parametrize("case", CASES, ids=[c["script"][:60] for c in CASES])
def test_the_corpus_case(case):
    result = analyse(case["script"])
    found = keys(result)
    assert bool(result.opaque) == case.get("opaque", False), (result.opaque, found)
    assert "analyser could not read" not in (result.opaque or "")
    for prefix in case.get("runs", []):
        assert has(found, prefix), (prefix, found)
    for prefix in case.get("absent", []):
        assert not has(found, prefix), (prefix, found)
    paths = {p for c in result.commands for p in command_paths(c, home=HOME)}
    for path in case.get("paths", []):
        assert path in paths, (path, sorted(paths))
    hosts = {h for c in result.commands for h in command_hosts(c)}
    for host in case.get("hosts", []):
        assert host in hosts, (host, sorted(hosts))
