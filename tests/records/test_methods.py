"""``dataclass_methods``: the public records are made by ``@dataclass(repr=False, eq=False)`` (so a
cold process compiles none of these methods) and get ``__repr__``, ``__eq__`` and ``__hash__``
that behave as the ones ``@dataclass`` generates: each compared here with the generated ones, on
every public record and on records written for the test (docs/decisions/plain-records.md)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest
import toolhooks
import toolhooks.kit
from toolhooks.kit import dataclass_methods
from toolhooks.plugins.event_log import EventLogStats
from toolhooks.plugins.result_budget import ArtifactPage
from toolhooks.stores import Provenance


def generated(cls: type, *, frozen: bool) -> Any:
    """A dataclass with ``cls``'s fields and the methods ``@dataclass`` generates for them."""
    specs = []
    for f in dataclasses.fields(cls):
        options: dict[str, Any] = {"repr": f.repr, "compare": f.compare, "hash": f.hash}
        if f.default is not dataclasses.MISSING:
            options["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            options["default_factory"] = f.default_factory
        specs.append((f.name, f.type, dataclasses.field(kw_only=f.kw_only, **options)))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=frozen)


WRITTEN_BEFORE = {"ToolCall", "ToolResult", "Outcome"}
"""Records whose ``__init__`` was written by hand before, to check and freeze their fields: their
signatures differ from a generated one on purpose (``params=None``, positional ``ToolResult``)."""


def outcome(method: Callable[..., Any], *args: Any) -> Any:
    """What a call gives, or the type of what it raises."""
    try:
        return method(*args)
    except Exception as exc:  # the exception's type is the outcome compared
        return type(exc)


def is_frozen(record: Any) -> bool:
    name = dataclasses.fields(record)[0].name
    try:
        setattr(record, name, getattr(record, name))
    except dataclasses.FrozenInstanceError:
        return True
    return False


def variants(record: Any) -> list[Any]:
    """The record, an equal copy, and a copy with each field changed in turn."""
    made = [record, dataclasses.replace(record)]
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        other: Any = "other" if not isinstance(value, str) else value + "x"
        if isinstance(value, bool):
            other = not value
        try:
            changed = dataclasses.replace(record, **{f.name: other})
        except (TypeError, ValueError, toolhooks.ToolhooksError):
            continue  # a field whose type the record checks
        if type(record).__name__ not in WRITTEN_BEFORE:  # (ToolCall makes a sender of an id)
            assert getattr(changed, f.name) == other, f"{type(record).__name__}.{f.name}"
        made.append(changed)
    return made


def samples() -> list[Any]:
    call = toolhooks.ToolCall(
        name="write_file",
        params={"path": "a.txt"},
        sender={"id": "u1", "roles": ["dev"]},
        spec=toolhooks.ToolSpec(name="write_file", tags=frozenset({"side_effect"})),
    )
    request = toolhooks.ApprovalRequest(title="Write a.txt?", description="Writes a file")
    pending = toolhooks.PendingApproval(
        id="ap_1",
        call=call,
        plugin="policy",
        request=request,
        digest="d1",
        expires_at=10.0,
    )
    script = toolhooks.kit.analyse_script("cd /tmp && rm -rf build > log", cwd="/w", home="/h")
    return [
        call,
        call.spec,
        toolhooks.ToolSpec(name="plain"),  # its parameters are a dict: unhashable
        call.sender,
        pending,
        toolhooks.ToolResult(status="ok", value=1, content="done"),
        toolhooks.Outcome(status="ok", content="x", call_id=call.id, trace_id=call.trace_id),
        toolhooks.Decision(status="allowed", call_id="c", trace_id="t", tool="read"),
        toolhooks.BeforeToolCallResult(block=True, block_reason="no"),
        toolhooks.AfterToolCallResult(content="hidden", labels=("secret",)),
        toolhooks.ApprovalDecision(decision="allow-once", by="me"),
        toolhooks.HandlerInfo(
            plugin="policy",
            hook="before_tool_call",
            priority=100,
            timeout_s=None,
            inline=True,
            is_async=False,
            on_error="fail_closed",
            mode="sync",
            tools=("write_*",),
        ),
        toolhooks.PluginInfo(
            name="policy",
            version="1",
            distribution="toolhooks",
            priority=100,
            hooks=("before_tool_call",),
            mode="sync",
            enabled=True,
            source="entry_point",
        ),
        toolhooks.load_config({"plugins": {"policy": {}}}),
        script,
        script.commands[1],
        script.commands[1].argv[0],
        Provenance(token="abc", labels=frozenset({"outside"})),
        EventLogStats(
            written=1, dropped=0, bytes_written=10, rotations=0, buffered=0, last_error=None
        ),
        ArtifactPage("ref", "text", 0, 4, None),
    ]


@pytest.mark.parametrize("record", samples(), ids=lambda record: type(record).__name__)
def test_a_public_record_behaves_as_its_generated_methods(record: Any) -> None:
    cls = type(record)
    frozen = is_frozen(record)
    made = generated(cls, frozen=frozen)
    if hasattr(cls.__repr__, "__wrapped__"):  # not one the class wrote (ToolCall's)
        assert repr(record) == made.__repr__(record)
    for other in variants(record):
        assert outcome(cls.__eq__, record, other) == outcome(made.__eq__, record, other)
        assert outcome(cls.__eq__, other, record) == outcome(made.__eq__, other, record)
        assert (record == other) == made.__eq__(record, other)
    assert record.__eq__(object()) is NotImplemented
    if cls.__name__ not in WRITTEN_BEFORE:
        # The parameters, shown (the return annotation is the string "None" where the module
        # has ``from __future__ import annotations``).
        shown = [str(inspect.signature(kind).parameters) for kind in (cls, made)]
        assert shown[0] == shown[1]
        required = {
            f.name: getattr(record, f.name)
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        ours, theirs, again = cls(**required), made(**required), cls(**required)
        for f in dataclasses.fields(cls):
            assert getattr(ours, f.name) == getattr(theirs, f.name), f.name
            if f.default_factory is not dataclasses.MISSING:  # a new value for each record
                assert getattr(ours, f.name) is not getattr(again, f.name), f.name
    if frozen:
        assert outcome(hash, record) == outcome(made.__hash__, record)
    else:
        assert cls.__hash__ is None
    assert dataclasses.is_dataclass(cls)


def test_every_public_record_with_these_methods_is_sampled() -> None:
    made_here = dataclass_methods.__code__.co_filename
    names = {
        name
        for pkg in (toolhooks, toolhooks.kit)
        for name in pkg._EXPORTS
        if dataclasses.is_dataclass(getattr(pkg, name))
        and getattr(pkg, name).__eq__.__code__.co_filename == made_here
    }
    assert len(names) >= 15
    assert names <= {type(record).__name__ for record in samples()}


@pytest.mark.parametrize("frozen", [True, False])
def test_the_fields_options_and_a_written_method_as_a_dataclass_has_them(frozen: bool) -> None:
    def make(methods: bool) -> Any:
        class Box:
            """A record for the test."""

            name: str
            size: int = dataclasses.field(default=0, compare=False)
            secret: str = dataclasses.field(default="", repr=False)
            key: str = dataclasses.field(default="", hash=False)

        if methods:
            return dataclass_methods(frozen=frozen)(
                dataclasses.dataclass(frozen=frozen, repr=False, eq=False)(Box)
            )
        return dataclasses.dataclass(frozen=frozen)(Box)

    ours, theirs = make(True), make(False)
    a, b = ours(name="a", size=1, secret="s", key="k"), ours(name="a", size=2, key="k")
    x, y = theirs(name="a", size=1, secret="s", key="k"), theirs(name="a", size=2, key="k")
    assert repr(a) == repr(x)
    assert (a == b) == (x == y)
    assert (a == ours(name="a", key="j")) == (x == theirs(name="a", key="j"))
    if frozen:
        assert hash(a) == hash(x)
        assert hash(ours(name="a", secret="s", key="j")) == hash(a)  # key: compared, not hashed
    else:
        assert ours.__hash__ is None and theirs.__hash__ is None
    assert inspect.signature(ours) == inspect.signature(theirs)

    @dataclass_methods(frozen=True)
    @dataclasses.dataclass(frozen=True, repr=False, eq=False)
    class Written:
        """Writes its own methods: they stay."""

        name: str

        def __repr__(self) -> str:
            return "written"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert (repr(Written(name="a")), Written(name="a") == 1, hash(Written(name="b"))) == (
        "written",
        True,
        7,
    )


def test_a_record_that_holds_itself_is_shown_once() -> None:
    result = toolhooks.AfterToolCallResult()
    result.value = result
    assert repr(result) == (
        "AfterToolCallResult(content=None, value=..., note=None, truncated=None, artifact=None,"
        " labels=None)"
    )


def test_the_generated_methods_are_named_after_their_class() -> None:
    assert toolhooks.Outcome.__eq__.__qualname__ == "Outcome.__eq__"
    assert toolhooks.Decision.__repr__.__qualname__ == "Decision.__repr__"
