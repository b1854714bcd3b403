"""Policy test cases: TOML files of calls and the decision each must get (``*.cases.toml``).

A file holds ``[[case]]`` tables::

    config = "toolhooks.toml"          # optional, relative to this file; else the usual discovery

    [[case]]
    name = "guests cannot exec"
    call = {name = "exec", params = {command = "ls"}, sender = {id = "g", roles = ["guest"]}}
    expect = "blocked"                 # or "ok", "approval", "denied", or a table:
                                       # {blocked_by = "policy"}, {params = {path = "/ws/a"}},
                                       # {warning = "loop"}, {status = "ok"}
    result = "..."                     # optional: what the tool returns (after hooks see it)

A sequence (loops, limits, a session's history) is ``calls = [{...}, {...}]``; ``expect`` is
about the last call. In a sequence a call may give its own ``result`` (what a page said before
the payment), and ``trust = "..."`` is the user's words for the sessions the calls carry
(``Runtime.trust``), so ``label`` / ``session`` / ``from`` rules are tested on a history.
Each case runs on a fresh runtime built from the config, so no state crosses cases. Calls run
through the whole pipeline, but no real tool ever runs: ``result`` (default "") stands in, and an
approval is deferred, never asked. Like ``toolhooks whatif`` (the same ``offline_runtime``), a
case never writes the configured event log, the shared state, the approval store or the
artifact folder: its calls are made up. ``toolhooks test`` runs them; so does pytest, through the
``toolhooks.testing`` plugin.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config._settings import LoadedConfig, load_config
from ..events._events import Event
from ..records._errors import ConfigError
from ..registry._hookimpl import hookimpl
from ..runtime._offline import offline_runtime

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUFFIX = ".cases.toml"
WORDS = {"ok": "ok", "blocked": "blocked", "approval": "pending", "denied": "denied"}
EXPECT_KEYS = {"status", "blocked_by", "params", "warning"}
CASE_KEYS = {"name", "call", "calls", "expect", "result", "trust"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One case as read from its file."""

    name: str
    file: str
    line: int
    calls: tuple[Mapping[str, Any], ...]
    expect: Mapping[str, Any]
    result: str
    config: str | None
    trust: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    case: Case
    problem: str | None
    """None: the case passed; else what differed."""
    outcome: Any = None


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """The cases of one file; a broken file is a ConfigError naming the file, line and key."""
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as error:
        raise ConfigError(f"{name}: cannot be read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: not valid TOML: {error}") from None
    except RecursionError:
        # tomllib recurses into nested arrays and inline tables: thousands deep exhaust the stack
        raise ConfigError("not valid TOML: nested too deeply to read", file=name) from None
    lines = [n for n, line in enumerate(text.splitlines(), 1) if re.match(r"\s*\[\[case\]\]", line)]
    unknown = set(data) - {"case", "config"}
    if unknown:
        raise ConfigError(f"{name}: unknown top-level key {sorted(unknown)[0]!r} (case, config)")
    config = data.get("config")
    if config is not None and not isinstance(config, str):
        raise ConfigError(f"{name}: config must be a path (a string)")
    if config is not None:
        config = os.path.join(os.path.dirname(os.path.abspath(name)), config)
    tables = data.get("case", [])
    if not isinstance(tables, list) or not tables:
        raise ConfigError(f"{name}: no [[case]] tables")
    return [
        _case(table, name, lines[i] if i < len(lines) else 1, config)
        for i, table in enumerate(tables)
    ]


def _case(table: Any, file: str, line: int, config: str | None) -> Case:
    where = f"{file}:{line}"
    unknown = set(table) - CASE_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise ConfigError(
            f"{where}: unknown key {key!r} in [[case]] ({', '.join(sorted(CASE_KEYS))})"
        )
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}: every [[case]] needs a name")
    calls = _calls_of(table, where, name)
    expect = _expectation(table.get("expect"), where, name)
    result = table.get("result", "")
    if not isinstance(result, str):
        raise ConfigError(f"{where}: case {name!r}: result must be a string")
    if any(not isinstance(c.get("result", ""), str) for c in calls):
        raise ConfigError(f"{where}: case {name!r}: a call's result must be a string")
    trust = table.get("trust")
    if trust is not None and (
        not isinstance(trust, str) or not all(c.get("session_id") for c in calls)
    ):
        raise ConfigError(
            f"{where}: case {name!r}: trust is the user's words (a string), for calls that "
            "carry a session_id"
        )
    return Case(
        name=name,
        file=file,
        line=line,
        calls=tuple(calls),
        expect=expect,
        result=result,
        config=config,
        trust=trust,
    )


def _calls_of(table: Any, where: str, name: str) -> list[dict[str, Any]]:
    """The case's calls: ``call = {...}`` or ``calls = [...]``, tables each."""
    if ("call" in table) == ("calls" in table):
        raise ConfigError(f"{where}: case {name!r} needs call = {{...}} or calls = [...], not both")
    calls = [table["call"]] if "call" in table else table["calls"]
    if not isinstance(calls, list) or not calls or not all(isinstance(c, dict) for c in calls):
        raise ConfigError(f"{where}: case {name!r}: calls must be tables like {{name = ...}}")
    return calls


def _expectation(expect: Any, where: str, name: str) -> dict[str, Any]:
    """``expect``: a word (the status) or a table of what to check."""
    if isinstance(expect, str):
        if expect not in WORDS:
            raise ConfigError(
                f"{where}: case {name!r}: expect {expect!r} is not one of {', '.join(WORDS)}"
            )
        expect = {"status": expect}
    if not isinstance(expect, dict) or not expect or set(expect) - EXPECT_KEYS:
        keys = ", ".join(sorted(EXPECT_KEYS))
        raise ConfigError(f"{where}: case {name!r}: expect is a word or a table of {keys}")
    if "status" in expect and expect["status"] not in WORDS:
        raise ConfigError(f"{where}: case {name!r}: status {expect['status']!r} is unknown")
    return expect


class _Seen:
    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.events.append(event)


def case_config(case: Case, config: LoadedConfig | None = None) -> LoadedConfig:
    """The config ``case`` runs under: its file's ``config``, else ``config``, else discovery."""
    return load_config(case.config) if case.config else (config or load_config(None))


def run_case(case: Case, config: LoadedConfig | None = None) -> CaseResult:
    """Run one case on a fresh runtime; ``config`` when the case file names none. Its made-up
    calls never reach the real log, shared state, approval store or artifact folder."""
    seen = _Seen()
    with tempfile.TemporaryDirectory(prefix="toolhooks-test-") as artifacts:
        runtime = offline_runtime(
            case_config(case, config), artifacts=artifacts, approver=lambda pending: "defer"
        )
        runtime._register_observer(seen, "cases.recorder")  # not subject to only / disable
        try:
            outcome = None
            last: list[Event] = []
            if case.trust is not None:
                for session in dict.fromkeys(str(c["session_id"]) for c in case.calls):
                    runtime.trust(session, case.trust)
            for call in case.calls:
                start = len(seen.events)
                proposal = dict(call)
                result: str = proposal.pop("result", case.result)
                outcome = runtime.call(proposal, execute=_returns(result))
                last = seen.events[start:]
        finally:
            runtime.close()
    problem = _compare(case.expect, outcome, last)
    return CaseResult(case=case, problem=problem, outcome=outcome)


def _returns(result: str) -> Callable[[dict[str, Any]], str]:
    """A stand-in tool: returns ``result`` whatever its params."""

    def execute(params: dict[str, Any]) -> str:
        return result

    return execute


def _compare(expect: Mapping[str, Any], outcome: Any, events: list[Event]) -> str | None:
    status = outcome.status
    got = f"{status}" + (f" by {outcome.blocked_by}" if outcome.blocked_by else "")
    wanted = expect.get("status")
    if wanted is not None and WORDS[wanted] != status:
        return f"expected {wanted}, got {got}" + (f": {outcome.reason}" if outcome.reason else "")
    if "blocked_by" in expect and (
        status != "blocked" or outcome.blocked_by != expect["blocked_by"]
    ):
        return f"expected blocked by {expect['blocked_by']}, got {got}"
    if "params" in expect:
        params = dict(outcome.params or {})
        for key, value in expect["params"].items():
            if params.get(key) != value:
                return f"expected params.{key} = {value!r}, got {params.get(key)!r}"
    if "warning" in expect:
        prefix = f"{expect['warning']}.warning"
        if not any(event.event == prefix for event in events):
            return f"expected a {expect['warning']} warning, got none ({got})"
    return None


def find_case_files(paths: list[str]) -> list[str]:
    """Every ``*.cases.toml`` under ``paths`` (files are taken as given), sorted."""
    found: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules",)]
            found += [os.path.join(root, f) for f in files if f.endswith(SUFFIX)]
    return sorted(dict.fromkeys(found))
