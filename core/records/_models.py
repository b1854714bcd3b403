"""The values that cross the hook boundary: calls, senders, tool specs, results, outcomes."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from .._public import public
from ._call_fields import MAPPING_KEYS, MAX_TOOL_NAME, id_problem, name_problem, new_id
from ._errors import InvalidToolCall
from ._frozen import EMPTY_PARAMS, FrozenDict, freeze_params
from ._methods import FACTORY, dataclass_methods
from ._sender import Sender

Origin = Literal["agent", "external"]
Status = Literal["ok", "error", "blocked", "denied", "pending"]
KNOWN_TAGS = frozenset({"side_effect", "elevated", "internal", "read_only"})


class _Sentinel:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name


REMOVE: Any = _Sentinel("REMOVE")
"""A value in a hook's ``params`` that deletes that key from the running params."""
UNSET: Any = _Sentinel("UNSET")
"""Marks an ``AfterToolCallResult.value`` that was not given (``None`` is a real value)."""


@dataclass_methods(frozen=True)
@dataclass(frozen=True, init=False, repr=False, eq=False)
class ToolSpec:
    """A tool as the model sees it. ``parameters`` is a JSON Schema object."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    tags: frozenset[str] = frozenset()

    def __init__(
        self,
        name: str,
        description: str = "",
        parameters: Mapping[str, Any] = FACTORY,
        tags: frozenset[str] = frozenset(),
    ) -> None:
        # Written here, as the public records' are: a generated __init__ is compiled from source
        # at every start (docs/decisions/plain-records.md).
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        if parameters is FACTORY:
            parameters = {"type": "object"}
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "tags", tags)


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class ToolCall:
    """One proposed tool call: an immutable record. ``params`` is a read-only deep copy.

    ``id`` and ``trace_id`` are generated when not given. ``sender`` may be given as a mapping or
    a bare id. ``spec`` is the registered :class:`ToolSpec` for ``name`` (set by the runtime), or
    None for a tool the runtime does not know.
    """

    name: str
    params: Mapping[str, Any] = field(default_factory=FrozenDict)
    id: str = ""
    session_id: str | None = None
    run_id: str | None = None
    trace_id: str = ""
    agent_id: str | None = None
    sender: Sender | None = None
    origin: Origin = "agent"
    context_window_tokens: int | None = None
    spec: ToolSpec | None = None

    def __init__(
        self,
        *,
        name: str,
        params: Mapping[str, Any] | None = None,
        id: str = "",
        session_id: str | None = None,
        run_id: str | None = None,
        trace_id: str = "",
        agent_id: str | None = None,
        sender: Sender | Mapping[str, Any] | str | None = None,
        origin: Origin = "agent",
        context_window_tokens: int | None = None,
        spec: ToolSpec | None = None,
    ) -> None:
        _check_and_set(
            self,
            name,
            params,
            id,
            session_id,
            run_id,
            trace_id,
            agent_id,
            sender,
            origin,
            context_window_tokens,
            spec,
        )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], spec: ToolSpec | None = None) -> "ToolCall":
        """Build a call from a plain dict with the constructor's keys; unknown keys are errors."""
        if type(data) is not dict and not isinstance(data, Mapping):
            raise InvalidToolCall(
                f"a tool call must be a ToolCall or a mapping, got {type(data).__name__}"
            )
        if not MAPPING_KEYS.issuperset(data):
            unknown = sorted(repr(k) for k in data if k not in MAPPING_KEYS)
            raise InvalidToolCall(f"tool call has unknown keys: {', '.join(unknown)}")
        if data.get("name") is None:
            raise InvalidToolCall("tool call has no 'name'")
        # None means "not given" (an id is generated, params are empty); origin has no such case.
        # The fields are checked and set positionally rather than through the keyword
        # constructor: 1.6 against 2.5 µs a proposal (timeit, 2-core EPYC), every dict call.
        get = data.get
        call = object.__new__(cls)
        _check_and_set(
            call,
            data["name"],
            get("params"),
            get("id") or "",
            get("session_id"),
            get("run_id"),
            get("trace_id") or "",
            get("agent_id"),
            get("sender"),
            get("origin", "agent"),
            get("context_window_tokens"),
            spec,
        )
        return call

    def with_params(self, params: Mapping[str, Any]) -> "ToolCall":
        """A copy with other params (frozen on the way)."""
        try:
            frozen = EMPTY_PARAMS if params is None else freeze_params(params)
        except ValueError as exc:
            raise InvalidToolCall(str(exc)) from None
        return self._copy(frozen, self.spec)

    def with_spec(self, spec: ToolSpec | None) -> "ToolCall":
        if spec is not None and not isinstance(spec, ToolSpec):
            raise InvalidToolCall("spec must be a ToolSpec")
        return self._copy(self.params, spec)

    def _copy(self, params: Mapping[str, Any], spec: ToolSpec | None) -> "ToolCall":
        # Every other field was checked when this call was made: copied, not checked again.
        # with_spec 0.96 µs against 3.7 µs for dataclasses.replace, which checks and freezes again
        # (timeit, 2-core EPYC); the runtime copies a call to attach its spec.
        clone = object.__new__(ToolCall)
        _set_call(
            clone,
            self.name,
            params,
            self.id,
            self.session_id,
            self.run_id,
            self.trace_id,
            self.agent_id,
            self.sender,
            self.origin,
            self.context_window_tokens,
            spec,
        )
        return clone

    def __repr__(self) -> str:
        return f"ToolCall(name={self.name!r}, params={dict(self.params)!r}, id={self.id!r})"

    def to_dict(self) -> dict[str, Any]:
        sender = self.sender
        return {
            "name": self.name,
            "params": dict(self.params),
            "id": self.id,
            "session_id": self.session_id,
            "run_id": self.run_id,
            "trace_id": self.trace_id,
            "agent_id": self.agent_id,
            "sender": None if sender is None else sender.__dict__.copy(),
            "origin": self.origin,
            "context_window_tokens": self.context_window_tokens,
        }


def _check_and_set(
    call: ToolCall,
    name: str,
    params: Mapping[str, Any] | None,
    id: str,
    session_id: str | None,
    run_id: str | None,
    trace_id: str,
    agent_id: str | None,
    sender: Sender | Mapping[str, Any] | str | None,
    origin: Origin,
    context_window_tokens: int | None,
    spec: ToolSpec | None,
) -> None:
    """Check a new call's fields (InvalidToolCall names the first bad one) and set them."""
    # Checked here, then set through each slot's own setter: a frozen dataclass's own
    # __init__ and __post_init__ go through object.__setattr__, 2.3 µs a call against 1.3 µs
    # here (timeit, idle 2-core EPYC), and every dict proposal makes one.
    if type(name) is not str or not name or len(name) > MAX_TOOL_NAME or not name.isprintable():
        raise InvalidToolCall(name_problem(name))
    if origin != "agent" and origin != "external":
        raise InvalidToolCall(f"origin must be 'agent' or 'external', got {origin!r}")
    for value in (id, session_id, run_id, trace_id, agent_id):
        if value is not None and type(value) is not str:
            raise InvalidToolCall(id_problem(id, session_id, run_id, trace_id, agent_id))
    tokens = context_window_tokens
    if tokens is not None and (type(tokens) is not int or tokens < 0):
        raise InvalidToolCall("context_window_tokens must be a non-negative integer")
    if spec is not None and not isinstance(spec, ToolSpec):
        raise InvalidToolCall("spec must be a ToolSpec")
    try:
        frozen = EMPTY_PARAMS if params is None else freeze_params(params)
        if sender is not None and type(sender) is not Sender:
            sender = Sender.coerce(sender)
    except ValueError as exc:
        raise InvalidToolCall(str(exc)) from None
    if not id or not trace_id:
        # A call that starts its own trace is that trace's only call: one id serves both.
        serial = new_id()
        id = id or f"call_{serial}"
        trace_id = trace_id or serial
    _set_call(
        call,
        name,
        frozen,
        id,
        session_id,
        run_id,
        trace_id,
        agent_id,
        sender,
        origin,
        tokens,
        spec,
    )


def slot_setters(record: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The setter of each field's slot of a slotted dataclass, in field order: what the records'
    handwritten ``__init__`` methods set their fields through."""
    return tuple(vars(record)[item.name].__set__ for item in fields(record))


_CALL_SETTERS = slot_setters(ToolCall)


def _set_call(
    call: ToolCall,
    name: str,
    params: Mapping[str, Any],
    id: str,
    session_id: str | None,
    run_id: str | None,
    trace_id: str,
    agent_id: str | None,
    sender: Sender | None,
    origin: Origin,
    context_window_tokens: int | None,
    spec: ToolSpec | None,
) -> None:
    """Set every field of a new call, through each slot's setter (see ToolCall.__init__)."""
    (
        s_name,
        s_params,
        s_id,
        s_session_id,
        s_run_id,
        s_trace_id,
        s_agent_id,
        s_sender,
        s_origin,
        s_tokens,
        s_spec,
    ) = _CALL_SETTERS
    s_name(call, name)
    s_params(call, params)
    s_id(call, id)
    s_session_id(call, session_id)
    s_run_id(call, run_id)
    s_trace_id(call, trace_id)
    s_agent_id(call, agent_id)
    s_sender(call, sender)
    s_origin(call, origin)
    s_tokens(call, context_window_tokens)
    s_spec(call, spec)


public("toolhooks", ToolCall, ToolSpec)
