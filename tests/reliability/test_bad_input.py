"""Bad input, each case getting a clear Outcome or error, and nothing lost.

Every case goes through ``call`` and ``acall`` on a runtime with the four built-in plugins (the
event log writing a real file), an approval-requesting plugin and a recorder. "Nothing lost":
every call ends with exactly one ``tool.injected`` event, every line of the event log is a whole
JSON object, and params that are accepted reach the tool (and the approver) unchanged.
RELIABILITY.md counts the cases of each table below.
"""

from __future__ import annotations

import asyncio
import enum
import json
import math
from collections.abc import Mapping
from pathlib import Path

import pytest
from toolhooks import (
    REMOVE,
    AfterToolCallResult,
    ApprovalDecision,
    ApprovalRequest,
    BeforeToolCallResult,
    ConfigError,
    Runtime,
    hookimpl,
)
from toolhooks.records._frozen import canonical_json, params_digest
from toolhooks.testing import EventRecorder

BIG = 50 * 1024 * 1024  # characters in the "50 MB string" cases


def nested_list(depth: int) -> list:
    root = current = []
    for _ in range(depth - 1):
        child: list = []
        current.append(child)
        current = child
    return root


def nested_dict(depth: int) -> dict:
    root = current = {}
    for _ in range(depth - 1):
        current["a"] = {}
        current = current["a"]
    return root


def self_cycle_dict() -> dict:
    value: dict = {}
    value["me"] = value
    return value


def self_cycle_list() -> list:
    value: list = []
    value.append(value)
    return value


def mutual_cycle() -> dict:
    a: dict = {}
    b = {"a": a}
    a["b"] = b
    return {"x": a}


class Hostile(Mapping):
    """A mapping that raises as soon as it is read."""

    def __getitem__(self, key):
        raise RuntimeError("hostile mapping")

    def __iter__(self):
        raise RuntimeError("hostile mapping")

    def __len__(self):
        return 1


class HostileGet(dict):
    def get(self, *args):
        raise RuntimeError("hostile get")


class QuacksLikeAMapping:
    def get(self, key, default=None):
        return "exec"


class Flag(enum.IntEnum):
    ON = 1


class Unprintable:
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


class AlwaysEqual(str):
    """A str that claims to equal anything: must not pass for "allow-once"."""

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


# -- the runtime under test --------------------------------------------------------------------


class Asks:
    """Asks for approval on every call, so the digest path sees every accepted params."""

    name = "asks"

    @hookimpl
    def before_tool_call(self, call):
        return {"require_approval": {"title": "check", "description": "bad input campaign"}}


BUILTINS = ["policy", "loop_detection", "result_budget", "event_log"]


@pytest.fixture
def harness(tmp_path, monkeypatch):
    """make(*plugins, config=..., approver=...) -> runtime; check() verifies nothing was lost."""
    monkeypatch.chdir(tmp_path)
    made = []

    def make(*plugins, config=None, approver=None, builtins=True):
        recorder = EventRecorder()
        # `only` holds for every plugin: the test's own ones are listed next to the built-ins.
        mine = [plugin.name for plugin in (*plugins, recorder)]
        full = {"plugins": {"only": [*BUILTINS, *mine]}, "tools": {"profile": "full"}}
        full = full if builtins else {}
        for key, value in (config or {}).items():
            full.setdefault(key, {}).update(value)
        rt = Runtime(
            plugins=[*plugins, recorder],
            config=full,
            approver=approver,
            load_entrypoints=builtins,
        )
        made.append((rt, recorder))
        return rt

    yield make
    for rt, recorder in made:
        rt.close()
        # Every call that was made ended with exactly one tool.injected, its last event.
        by_call: dict[str, list[str]] = {}
        for event in recorder.events:
            by_call.setdefault(event.call_id, []).append(event.event)
        for names in by_call.values():
            assert names.count("tool.injected") == 1 and names[-1] == "tool.injected", names
    log = tmp_path / ".toolhooks" / "events.jsonl"
    if log.exists():
        lines = log.read_bytes().split(b"\n")
        assert lines[-1] == b""  # the file ends with a whole line
        parsed = [json.loads(line) for line in lines[:-1]]
        assert all(isinstance(event, dict) and "event" in event for event in parsed)


def both(rt, request, execute=None):
    """The request through ``call`` and then ``acall`` on one runtime."""
    return rt.call(request, execute=execute), asyncio.run(rt.acall(request, execute=execute))


def recording_executor():
    ran: list = []

    def execute(params):
        ran.append(params)
        return "ran"

    return ran, execute


# -- 1. tool calls that are not mappings -------------------------------------------------------

NOT_A_CALL = {
    "None": None,
    "int": 0,
    "float": 1.5,
    "bool": True,
    "str": "exec",
    "bytes": b"exec",
    "bytearray": bytearray(b"exec"),
    "list": ["exec", {}],
    "tuple": ("exec", {}),
    "set": {"exec"},
    "object": object(),
    "duck-typed get()": QuacksLikeAMapping(),
    "mapping that raises": Hostile(),
    "dict whose get() raises": HostileGet(name="exec"),
}


@pytest.mark.parametrize("raw", NOT_A_CALL.values(), ids=NOT_A_CALL.keys())
def test_a_call_that_is_not_a_mapping_is_a_blocked_outcome(harness, raw):
    ran, execute = recording_executor()
    rt = harness(Asks())
    for outcome in both(rt, raw, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
        assert outcome.reason.startswith("Invalid tool call: ")
        assert outcome.content == outcome.reason
    assert ran == []


# -- 2. names ----------------------------------------------------------------------------------

BAD_NAMES = {
    "empty": "",
    "10 KB": "x" * 10 * 1024,
    "257 chars": "x" * 257,
    "NUL": "a\x00b",
    "newline": "read\nrm -rf /",
    "tab": "a\tb",
    "ANSI escape": "\x1b[2Jexec",
    "DEL": "a\x7fb",
    "line separator": "a\u2028b",
    "lone surrogate": "\ud800",
    "None": None,
    "int": 7,
    "bytes": b"exec",
    "list": ["exec"],
}


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_a_bad_name_is_a_blocked_outcome_naming_the_problem(harness, name):
    ran, execute = recording_executor()
    rt = harness(Asks())
    for outcome in both(rt, {"name": name, "params": {"a": 1}}, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
        assert outcome.reason.startswith("Invalid tool call: tool ") and "name" in outcome.reason
        assert len(outcome.reason) < 400  # a 10 KB name is not echoed back
    assert ran == []


def test_a_call_without_a_name_is_a_blocked_outcome(harness):
    rt = harness()
    for outcome in both(rt, {"params": {}}):
        assert (
            outcome.status == "blocked"
            and outcome.reason == "Invalid tool call: tool call has no 'name'"
        )


@pytest.mark.parametrize(
    "name", ["x" * 256, "工具", "fs.read-v2", " "], ids=["256", "cjk", "dots", "space"]
)
def test_names_at_the_limits_are_accepted(harness, name):
    ran, execute = recording_executor()
    rt = harness(approver=lambda pending: "allow-once")
    for outcome in both(rt, {"name": name}, execute):
        assert outcome.status == "ok" and outcome.tool == name
    assert len(ran) == 2


# -- 3. the other fields of a call -------------------------------------------------------------

BAD_FIELDS = {
    "unknown key": {"name": "t", "nmae": "t"},
    "spec is not settable": {"name": "t", "spec": None},
    "params is a list": {"name": "t", "params": [1, 2]},
    "params is a str": {"name": "t", "params": "a=1"},
    "params is an int": {"name": "t", "params": 5},
    "sender is an int": {"name": "t", "sender": 5},
    "sender has unknown keys": {"name": "t", "sender": {"id": "a", "admin": True}},
    "sender.id is not a str": {"name": "t", "sender": {"id": 5}},
    "sender.roles is a str": {"name": "t", "sender": {"id": "a", "roles": "admin"}},
    "origin is unknown": {"name": "t", "origin": "internal"},
    "origin is None": {"name": "t", "origin": None},
    "session_id is an int": {"name": "t", "session_id": 5},
    "trace_id is bytes": {"name": "t", "trace_id": b"x"},
    "context_window_tokens < 0": {"name": "t", "context_window_tokens": -1},
    "context_window_tokens is a bool": {"name": "t", "context_window_tokens": True},
    "context_window_tokens is a str": {"name": "t", "context_window_tokens": "100000"},
}


@pytest.mark.parametrize("raw", BAD_FIELDS.values(), ids=BAD_FIELDS.keys())
def test_a_bad_call_field_is_a_blocked_outcome(harness, raw):
    ran, execute = recording_executor()
    rt = harness(Asks())
    for outcome in both(rt, raw, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
        assert outcome.reason.startswith("Invalid tool call: ")
    assert ran == []


# -- 4. params that are refused ----------------------------------------------------------------

REFUSED_PARAMS = {
    "dict cycle": (lambda: self_cycle_dict(), "reference cycle"),
    "list cycle": (lambda: {"x": self_cycle_list()}, "reference cycle"),
    "mutual cycle": (mutual_cycle, "reference cycle"),
    "10,000-level list": (lambda: {"x": nested_list(10_000)}, "nested deeper than 64"),
    "10,000-level dict": (lambda: {"x": nested_dict(10_000)}, "nested deeper than 64"),
    "66-level list": (lambda: {"x": nested_list(66)}, "nested deeper than 64"),
    "int key": (lambda: {1: "one"}, "not a string"),
    "None key": (lambda: {None: 1}, "not a string"),
    "nested tuple key": (lambda: {"x": {("a",): 1}}, "not a string"),
    "object value": (lambda: {"x": object()}, "unsupported type object"),
    "bytearray value": (lambda: {"x": bytearray(b"x")}, "unsupported type bytearray"),
    "function value": (lambda: {"x": print}, "unsupported type"),
    "class value": (lambda: {"x": int}, "unsupported type type"),
    "generator value": (lambda: {"x": (i for i in range(3))}, "unsupported type generator"),
    "REMOVE in a proposal": (lambda: {"x": REMOVE}, "unsupported type"),
    "hostile nested mapping": (lambda: {"x": Hostile()}, "cannot be read"),
}


@pytest.mark.parametrize(("make", "fragment"), REFUSED_PARAMS.values(), ids=REFUSED_PARAMS.keys())
def test_params_that_cannot_be_handed_to_a_tool_are_refused(harness, make, fragment):
    ran, execute = recording_executor()
    asked = []
    rt = harness(Asks(), approver=lambda pending: asked.append(pending) or "allow-once")
    for outcome in both(rt, {"name": "t", "params": make()}, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "toolhooks"
        assert outcome.reason.startswith("Invalid tool call: ") and fragment in outcome.reason
        assert len(outcome.reason) < 2_000
    assert ran == [] and asked == []


# -- 5. params that are accepted and must arrive unchanged --------------------------------------

ACCEPTED_PARAMS = {
    "NaN": lambda: {"x": math.nan},
    "infinities": lambda: {"x": math.inf, "y": -math.inf, "z": -0.0},
    "bytes": lambda: {"x": b"\xff\x00binary", "empty": b""},
    "set": lambda: {"x": {1, 2, 3}},
    "frozenset": lambda: {"x": frozenset({b"a", "a"})},
    "tuple": lambda: {"x": (1, [2, (3,)])},
    "50 MB string": lambda: {"x": "a" * BIG},
    "int of 5,000 digits": lambda: {"x": 10**5000},
    "lone surrogate": lambda: {"x": "\ud800"},
    "unicode and empty keys": lambda: {"ключ": "значение", "": "empty"},
    "64-level list": lambda: {"x": nested_list(63)},
    "10,000 keys": lambda: {f"k{i}": i for i in range(10_000)},
    "100,000-item list": lambda: {"x": list(range(100_000))},
    "IntEnum": lambda: {"x": Flag.ON},
    "None and bools": lambda: {"x": None, "y": True, "z": False},
}


@pytest.mark.parametrize("make", ACCEPTED_PARAMS.values(), ids=ACCEPTED_PARAMS.keys())
def test_accepted_params_reach_the_approver_and_the_tool_unchanged(harness, make):
    proposed = make()
    ran, execute = recording_executor()
    asked = []
    rt = harness(Asks(), approver=lambda pending: asked.append(pending) or "allow-once")
    outcomes = both(
        rt, {"name": "t", "params": proposed, "sender": "ops", "session_id": "s"}, execute
    )
    for outcome in outcomes:
        assert outcome.status == "ok", outcome.reason
    expected = canonical_json(proposed)
    assert [canonical_json(p) for p in ran] == [expected, expected]
    # The approver saw exactly what ran, and the digest is over those bytes.
    for pending, params in zip(asked, ran, strict=True):
        assert canonical_json(pending.call.params) == expected
        assert pending.digest == params_digest("t", params, "ops", "s")


# -- 6. before_tool_call results of the wrong type or with unknown keys -------------------------

BAD_BEFORE_RESULTS = {
    "int": 5,
    "str": "allow",
    "bytes": b"",
    "list": [{"block": True}],
    "tuple": (True, "reason"),
    "True": True,
    "float": 1.0,
    "object": object(),
    "AfterToolCallResult": AfterToolCallResult(content="x"),
    "typo'd key": {"blok": True},
    "non-str key": {5: True},
    "block is a str": {"block": "yes"},
    "block is an int": {"block": 1},
    "block is None": {"block": None},
    "block_reason is an int": {"block": True, "block_reason": 5},
    "params is a list": {"params": [1]},
    "params is a str": {"params": "a=1"},
    "params key is an int": {"params": {1: 2}},
    "params value is an object": {"params": {"a": object()}},
    "params value is a cycle": {"params": {"a": self_cycle_list()}},
    "params value is 10,000 deep": {"params": {"a": nested_list(10_000)}},
    "REMOVE nested in a value": {"params": {"a": [REMOVE]}},
    "params mapping raises": {"params": Hostile()},
    "require_approval is a str": {"require_approval": "yes"},
    "require_approval is an int": {"require_approval": 5},
    "dataclass with a bad block": BeforeToolCallResult(block="no"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("returned", BAD_BEFORE_RESULTS.values(), ids=BAD_BEFORE_RESULTS.keys())
def test_an_invalid_before_result_blocks_unless_the_plugin_is_ignored(harness, returned):
    class Bad:
        name = "bad"

        @hookimpl
        def before_tool_call(self, call):
            return returned

    ran, execute = recording_executor()
    rt = harness(Bad())
    for outcome in both(rt, {"name": "t", "params": {"a": 1}}, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "bad"
        assert outcome.reason.startswith(
            "Tool call blocked because before_tool_call hook bad failed: "
        )
    assert ran == []
    ignoring = harness(Bad(), config={"plugins": {"bad": {"on_error": "ignore"}}})
    for outcome in both(ignoring, {"name": "t", "params": {"a": 1}}, execute):
        assert outcome.status == "ok" and outcome.params == {"a": 1}
    assert ran == [{"a": 1}, {"a": 1}]


# -- 7. after_tool_call results of the wrong type or with unknown keys --------------------------

BAD_AFTER_RESULTS = {
    "int": 5,
    "str": "replace me",
    "list": ["content"],
    "object": object(),
    "BeforeToolCallResult": BeforeToolCallResult(block=True),
    "unknown key": {"contents": "x"},
    "content is an int": {"content": 5},
    "content is bytes": {"content": b"x"},
    "note is bytes": {"note": b"x"},
    "truncated is a str": {"truncated": "yes"},
    "artifact is an int": {"artifact": 3},
    "mapping raises": Hostile(),
}


@pytest.mark.parametrize("returned", BAD_AFTER_RESULTS.values(), ids=BAD_AFTER_RESULTS.keys())
def test_an_invalid_after_result_fails_open_or_withholds_when_configured(harness, returned):
    class Bad:
        name = "bad"

        @hookimpl
        def after_tool_call(self, call, result):
            return returned

    ran, execute = recording_executor()
    rt = harness(Bad())
    for outcome in both(rt, {"name": "t"}, execute):
        assert outcome.status == "ok" and outcome.content == "ran" and not outcome.truncated
    strict = harness(Bad(), config={"plugins": {"bad": {"on_error": "block"}}})
    for outcome in both(strict, {"name": "t"}, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "bad"
        assert "ran" not in outcome.content
    assert len(ran) == 4


# -- 8. approval requests with bad fields ------------------------------------------------------

BAD_REQUESTS = {
    "empty title": {"title": "", "description": "d"},
    "81-char title": {"title": "x" * 81, "description": "d"},
    "513-char description": {"title": "t", "description": "d" * 513},
    "no description": {"title": "t"},
    "no title": {"description": "d"},
    "title is an int": {"title": 5, "description": "d"},
    "unknown severity": {"title": "t", "description": "d", "severity": "fatal"},
    "timeout NaN": {"title": "t", "description": "d", "timeout_s": math.nan},
    "timeout is a str": {"title": "t", "description": "d", "timeout_s": "soon"},
    "timeout is a bool": {"title": "t", "description": "d", "timeout_s": True},
    "timeoutMs is a bool": {"title": "t", "description": "d", "timeoutMs": True},
    "both timeouts": {"title": "t", "description": "d", "timeoutMs": 500, "timeout_s": 2},
    "no allowed decisions": {"title": "t", "description": "d", "allowed_decisions": []},
    "unknown decision allowed": {"title": "t", "description": "d", "allowed_decisions": ["maybe"]},
    "allowed is a str": {"title": "t", "description": "d", "allowed_decisions": "deny"},
    "unknown key": {"title": "t", "description": "d", "auto_approve": True},
    "timeout_behavior allow": {"title": "t", "description": "d", "timeout_behavior": "allow"},
    "a list": ["t", "d"],
    "model_construct, empty title": ApprovalRequest.model_construct(
        title="", description="d", timeout_s=math.nan, allowed_decisions=("allow-once",)
    ),
    "model_construct, allowed is an int": ApprovalRequest.model_construct(
        title="t", description="d", timeout_s=1.0, allowed_decisions=5
    ),
}


@pytest.mark.parametrize("request_", BAD_REQUESTS.values(), ids=BAD_REQUESTS.keys())
def test_an_approval_request_with_bad_fields_blocks_before_anyone_is_asked(harness, request_):
    class Bad:
        name = "bad"

        @hookimpl
        def before_tool_call(self, call):
            return {"require_approval": request_}

    ran, execute = recording_executor()
    asked = []
    rt = harness(Bad(), approver=lambda pending: asked.append(pending) or "allow-once")
    for outcome in both(rt, {"name": "t"}, execute):
        assert outcome.status == "blocked" and outcome.blocked_by == "bad"
        assert "require_approval" in outcome.reason
    assert ran == [] and asked == []


@pytest.mark.parametrize(
    ("fields", "timeout"),
    [({"timeout_s": math.inf}, 600.0), ({"timeout_s": -5}, 1.0), ({"timeoutMs": 10}, 1.0)],
    ids=["inf clamps to 600", "negative clamps to 1", "10 ms clamps to 1"],
)
def test_out_of_range_approval_timeouts_are_clamped(harness, fields, timeout):
    class Clamped:
        name = "clamped"

        @hookimpl
        def before_tool_call(self, call):
            return {"require_approval": {"title": "t", "description": "d", **fields}}

    asked = []
    rt = harness(Clamped(), approver=lambda pending: asked.append(pending) or "allow-once")
    for outcome in both(rt, {"name": "t"}, lambda params: "ran"):
        assert outcome.status == "ok"
    assert [pending.request.timeout_s for pending in asked] == [timeout, timeout]


# -- 9. approver answers that are not decisions ------------------------------------------------

BAD_ANSWERS = {
    "None": None,
    "int": 5,
    "upper case": "ALLOW-ONCE",
    "spaced": "allow once",
    "decision is an int": {"decision": 5},
    "no decision key": {"allow": True},
    "unknown ApprovalDecision": ApprovalDecision("maybe"),
    "str subclass equal to anything": AlwaysEqual("yes"),
    "list": ["allow-once"],
    "mapping raises": Hostile(),
}


@pytest.mark.parametrize("answer", BAD_ANSWERS.values(), ids=BAD_ANSWERS.keys())
def test_an_answer_that_is_not_a_decision_denies(harness, answer):
    ran, execute = recording_executor()
    rt = harness(Asks(), approver=lambda pending: answer)
    for outcome in both(rt, {"name": "t"}, execute):
        assert outcome.status == "denied" and outcome.blocked_by is None
        assert outcome.reason.startswith(("Denied by user (decision", "Approval failed: "))
    assert ran == []


# -- 10. tool return values ---------------------------------------------------------------------

ODD_RESULTS = {
    "dict cycle": self_cycle_dict,
    "10,000-level list": lambda: nested_list(10_000),
    "10,000-level dict": lambda: nested_dict(10_000),
    "int of 5,000 digits": lambda: 10**5000,
    "NaN": lambda: math.nan,
    "str and repr raise": Unprintable,
    "50 MB string": lambda: "r" * BIG,
    "generator": lambda: (i for i in range(3)),
    "invalid UTF-8 bytes": lambda: b"\xff\xfe\x00",
    "set of mixed types": lambda: {1, "a", b"b"},
}


@pytest.mark.parametrize("make", ODD_RESULTS.values(), ids=ODD_RESULTS.keys())
def test_any_tool_return_value_becomes_text(harness, make):
    rt = harness()
    for outcome in both(rt, {"name": "t", "session_id": "odd"}, lambda params: make()):
        assert outcome.status == "ok" and isinstance(outcome.content, str)
        assert len(outcome.content) <= 20_000  # the result budget holds for a 50 MB result too


# -- 11. configs with wrong types --------------------------------------------------------------

BAD_CONFIGS = {
    "an int": 42,
    "bytes": b"[plugins]",
    "a list": ["plugins"],
    "[plugins] is a list": {"plugins": []},
    "only is a str": {"plugins": {"only": "policy"}},
    "only holds an int": {"plugins": {"only": [1]}},
    "disable is None": {"plugins": {"disable": None}},
    "on_load_error unknown": {"plugins": {"on_load_error": "maybe"}},
    "non-str plugin name": {"plugins": {1: {}}},
    "plugin table is an int": {"plugins": {"shadow": 5}},
    "priority is a str": {"plugins": {"shadow": {"priority": "high"}}},
    "priority is a bool": {"plugins": {"shadow": {"priority": True}}},
    "priority is a float": {"plugins": {"shadow": {"priority": 1.5}}},
    "timeout_s negative": {"plugins": {"shadow": {"timeout_s": -1}}},
    "timeout_s NaN": {"plugins": {"shadow": {"timeout_s": math.nan}}},
    "timeout_s inf": {"plugins": {"shadow": {"timeout_s": math.inf}}},
    "mode unknown": {"plugins": {"shadow": {"mode": "shadow"}}},
    "on_error unknown": {"plugins": {"shadow": {"on_error": "explode"}}},
    "enabled is a str": {"plugins": {"shadow": {"enabled": "no"}}},
    "tools is a str": {"plugins": {"shadow": {"tools": "exec"}}},
    "tools holds an empty pattern": {"plugins": {"shadow": {"tools": [""]}}},
    "table for an unknown plugin": {"plugins": {"nobody": {"priority": 1}}},
    "unknown top-level key": {"tool": {}},
    "non-str top-level key": {1: 2},
    "[tools] is a list": {"tools": []},
    "[approvals] is a list": {"approvals": []},
    "approval route unknown": {"approvals": {"route": "email"}},
    "approval route is an int": {"approvals": {"route": 5}},
    "approvals db is an int": {"approvals": {"db": 5}},
    "poll interval 0": {"approvals": {"poll_interval_s": 0}},
    "a file that does not exist": "/nonexistent/toolhooks.toml",
}


class Shadow:
    name = "shadow"

    @hookimpl
    def before_tool_call(self, call):
        return None


@pytest.mark.parametrize("config", BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
def test_a_config_of_the_wrong_shape_is_a_config_error(config):
    with pytest.raises(ConfigError) as raised:
        # A table naming no plugin is reported at first use (a plugin may be registered later).
        Runtime(plugins=[Shadow()], config=config, load_entrypoints=False).call({"name": "t"})
    message = str(raised.value)
    assert message.startswith(("<config>:", "/nonexistent"))
    assert len(message) < 500


BAD_TOML = {
    "syntax error": ("toolhooks.toml", "[plugins\n", "toolhooks.toml:1: invalid TOML"),
    "not UTF-8": ("toolhooks.toml", b"\xff\xfe[plugins]\n", "not UTF-8"),
    "only is a str": ("toolhooks.toml", '[plugins]\nonly = "policy"\n', "toolhooks.toml:2: "),
    "priority is a str": (
        "toolhooks.toml",
        '[plugins.shadow]\nmode = "audit"\npriority = "9"\n',
        "toolhooks.toml:3: plugins.shadow.priority",
    ),
    "enabled is a str": ("toolhooks.toml", '[plugins.shadow]\nenabled = "false"\n', ":2: "),
    "timeout_s inf": ("toolhooks.toml", "[plugins.shadow]\ntimeout_s = inf\n", ":2: "),
    "unknown key": ("toolhooks.toml", '[plugins.shadow]\nmdoe = "audit"\n', "unknown key 'mdoe'"),
    "pyproject tool = 5": ("pyproject.toml", "tool = 5\n", "the config must be a table"),
    "pyproject toolhooks = 5": ("pyproject.toml", "[tool]\ntoolhooks = 5\n", "must be a table"),
}


@pytest.mark.parametrize(("name", "text", "fragment"), BAD_TOML.values(), ids=BAD_TOML.keys())
def test_a_bad_config_file_is_a_config_error_naming_file_and_line(tmp_path, name, text, fragment):
    path: Path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as raised:
        Runtime(plugins=[Shadow()], config=path, load_entrypoints=False)
    assert fragment in str(raised.value) and name in str(raised.value)


@pytest.mark.parametrize(
    "timeout", [math.nan, math.inf, 0, -1, True], ids=["NaN", "inf", "0", "-1", "True"]
)
def test_hookimpl_refuses_a_timeout_that_would_never_fire(timeout):
    with pytest.raises(ValueError, match="positive, finite number of seconds"):
        hookimpl(timeout=timeout)
