"""The golden fixtures of the agents that cannot run here (Cursor, Copilot, Windsurf, Cline).

``fixtures/<agent>/<event>.json`` holds, per case, a payload written from the agent's published
hook schema (or raw ``stdin`` toolhooks cannot read), what toolhooks must read from it
(``event``), the decision to answer with (``answer``) and the agent's reply for it (``reply``:
exit code, stdout as JSON or text, stderr). A string ``"re:..."`` in an expectation is a regular
expression the actual string must match whole; everything else must be equal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = ("cursor", "copilot", "windsurf", "cline")


@dataclass(frozen=True)
class Case:
    agent: str
    event: str
    name: str
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.agent}/{self.event}/{self.name}"

    @property
    def stdin(self) -> bytes:
        if "stdin" in self.data:
            return str(self.data["stdin"]).encode()
        return json.dumps(self.data["payload"]).encode()


def cases(*, refusals: bool) -> list[Case]:
    found = []
    for agent in AGENTS:
        for path in sorted((FIXTURES / agent).glob("*.json")):
            doc = json.loads(path.read_text())
            # <event>.json, or <event>.<variant>.json for a second spelling of one event
            event = path.name.split(".")[0]
            assert doc["agent"] == agent and doc["event"] == event, path
            if (event == "refusals") != refusals:
                continue
            found.extend(Case(agent, event, c["name"], c) for c in doc["cases"])
    return found


def matches(expected: Any, actual: Any) -> bool:
    """``actual`` equals ``expected``, where an ``re:`` string is a pattern to match whole."""
    if isinstance(expected, str) and expected.startswith("re:"):
        return isinstance(actual, str) and re.fullmatch(expected[3:], actual, re.S) is not None
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(matches(expected[key], actual[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual)


def reply_matches(expected: dict[str, Any], stdout: str, stderr: str, exit_code: int) -> str:
    """What differs between the expected reply and the actual one ("" when they agree)."""
    problems = []
    if exit_code != expected["exit_code"]:
        problems.append(f"exit code {exit_code}, expected {expected['exit_code']}")
    want = expected["stdout"]
    if isinstance(want, dict):
        try:
            got: Any = json.loads(stdout)
        except ValueError:
            got = stdout
    else:
        got = stdout
    if not matches(want, got):
        problems.append(f"stdout {stdout!r}, expected {json.dumps(want)}")
    if not matches(expected.get("stderr", ""), stderr):
        problems.append(f"stderr {stderr!r}, expected {expected.get('stderr', '')!r}")
    return "; ".join(problems)
