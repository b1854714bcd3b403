"""A ``[[rules]]`` entry and ``[plugins.rules]`` checked by hand into plain records, so that a
process that loads a policy builds no pydantic model (the models in ``_config`` cost a cold
process about half a billion instructions: pydantic's import and its schema machinery).

The hand check accepts only the plain shapes a TOML file gives (``str``, ``list``, ``dict``,
``bool``) and only values the models would accept, with the same result. Anything else (a
mistake, but also a tuple, a ``None`` or an unusual string) makes it answer ``None``, and then
the models validate the table: their messages are the errors (docs/decisions/rules-hand-check.md),
and a table they accept is copied into the same records. A test runs both on the same tables.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from ._defaults import DEFAULTS, DecisionName

DECISIONS: Final = frozenset({"allow", "ask", "deny"})
TEXT_LIMIT: Final = 4096
LABEL_LIMIT: Final = 128
ID_LIMIT: Final = 80
REASON_LIMIT: Final = 400
CONDITION_KEYS: Final = ("command", "flags", "args", "paths", "hosts", "params", "session", "from")
"""The conditions, in the order ``given`` names them (the models' field order)."""
RULE_KEYS: Final = frozenset(
    {*CONDITION_KEYS, "id", "tools", "decision", "label", "reason", "unless", "match", "not_match"}
)
OPTION_KEYS: Final = frozenset({"unmatched", "opaque", "protect_own_state"})
_FROM_KEYS: Final = frozenset({"labels", "params", "only"})


class _Unchecked(Exception):
    """The table is not in a plain shape the hand check vouches for: the models decide."""


class _Record:
    """A read-only record with keyword-only fields (``_fields``: every field, its own and its
    base's; ``__slots__``: its own)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        for name in self._fields:
            object.__setattr__(self, name, values.pop(name))
        if values:
            raise TypeError(f"{type(self).__name__}: unknown fields {sorted(values)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)

    __hash__ = None  # type: ignore[assignment]  # its lists are mutable

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"


class FromLabels(_Record):
    """A ``from`` condition (``FromTable`` in ``_config`` documents each field)."""

    __slots__ = ("labels", "only", "params")
    _fields: tuple[str, ...] = ("labels", "params", "only")

    labels: list[str]
    params: list[str] | None
    only: Literal["hosts"] | None


class ConditionsTable(_Record):
    """A rule's conditions or its ``unless`` table (``Conditions`` in ``_config`` documents each
    field); ``from`` is ``from_``."""

    __slots__ = ("args", "command", "flags", "from_", "hosts", "params", "paths", "session")
    _fields: tuple[str, ...] = (
        "command", "flags", "args", "paths", "hosts", "params", "session", "from_",
    )  # fmt: skip

    command: list[str | list[str]] | None
    flags: list[str] | None
    args: list[str] | None
    paths: list[str] | None
    hosts: list[str] | None
    params: dict[str, str | list[str]] | None
    session: list[str] | None
    from_: FromLabels | None

    def given(self) -> list[str]:
        """The names of the conditions this table gives, in field order."""
        return [
            key
            for key, name in zip(CONDITION_KEYS, ConditionsTable._fields, strict=True)
            if getattr(self, name) is not None
        ]


class RuleTable(ConditionsTable):
    """One ``[[rules]]`` entry (``RuleConfig`` in ``_config`` documents each field)."""

    __slots__ = ("decision", "id", "label", "match", "not_match", "reason", "tools", "unless")
    _fields = (
        *ConditionsTable._fields,
        *("id", "tools", "decision", "label", "reason", "unless", "match", "not_match"),
    )

    id: str
    tools: list[str]
    decision: DecisionName | None
    label: str | None
    reason: str | None
    unless: ConditionsTable | None
    match: list[str | dict[str, Any]]
    not_match: list[str | dict[str, Any]]


class RulesOptions(_Record):
    """``[plugins.rules]`` (``RulesSettings`` in ``_config`` documents each key)."""

    __slots__ = ("opaque", "protect_own_state", "unmatched")
    _fields: tuple[str, ...] = ("unmatched", "opaque", "protect_own_state")

    unmatched: DecisionName
    opaque: DecisionName
    protect_own_state: bool


DEFAULT_OPTIONS: Final = RulesOptions(
    unmatched=DEFAULTS.unmatched, opaque=DEFAULTS.opaque, protect_own_state=True
)


# -- the hand check -------------------------------------------------------------------------


def checked_rule(data: Any) -> RuleTable | None:
    """The rule ``data`` as a record, or None when the models must decide (see the module)."""
    try:
        return _rule(data)
    except _Unchecked:
        return None


def checked_options(data: Any) -> RulesOptions | None:
    """``[plugins.rules]`` as a record, or None when ``RulesSettings`` must decide."""
    if type(data) is not dict or not data.keys() <= OPTION_KEYS:
        return None
    unmatched = data.get("unmatched", DEFAULTS.unmatched)
    opaque = data.get("opaque", DEFAULTS.opaque)
    protect = data.get("protect_own_state", True)
    if not (_is_decision(unmatched) and _is_decision(opaque) and type(protect) is bool):
        return None
    return RulesOptions(unmatched=unmatched, opaque=opaque, protect_own_state=protect)


def _rule(data: Any) -> RuleTable:
    if type(data) is not dict or not data.keys() <= RULE_KEYS:
        raise _Unchecked
    rule_id = data.get("id")
    # The model's pattern is "no whitespace" in its own (Unicode) sense: only printable ASCII
    # without a space is vouched for here.
    if not (
        type(rule_id) is str
        and 0 < len(rule_id) <= ID_LIMIT
        and rule_id.isascii()
        and rule_id.isprintable()
        and " " not in rule_id
    ):
        raise _Unchecked
    decision = data.get("decision")
    if decision is not None and not _is_decision(decision):
        raise _Unchecked
    label = data.get("label")
    if label is not None:
        _text(label, LABEL_LIMIT)
    if decision is None and label is None:
        raise _Unchecked  # the model's message: a rule needs a decision, a label, or both
    reason = data.get("reason")
    if reason is not None:
        _text(reason, REASON_LIMIT)
    unless = data.get("unless")
    return RuleTable(
        **_conditions(data),
        id=rule_id,
        tools=_texts(data["tools"], TEXT_LIMIT) if "tools" in data else ["*"],
        decision=decision,
        label=label,
        reason=reason,
        unless=None if unless is None else _unless(unless),
        match=_examples(data.get("match", [])),
        not_match=_examples(data.get("not_match", [])),
    )


def _unless(data: Any) -> ConditionsTable:
    if type(data) is not dict or not data.keys() <= _CONDITION_KEY_SET:
        raise _Unchecked
    return ConditionsTable(**_conditions(data))


_CONDITION_KEY_SET: Final = frozenset(CONDITION_KEYS)


def _conditions(data: dict[str, Any]) -> dict[str, Any]:
    """The condition fields of ``data`` (absent ones None), as the models make them."""
    command = data.get("command")
    flags = data.get("flags")
    args = data.get("args")
    paths = data.get("paths")
    hosts = data.get("hosts")
    params = data.get("params")
    session = data.get("session")
    source = data.get("from")
    return {
        "command": None if command is None else _command(command),
        "flags": None if flags is None else _flags(flags),
        "args": None if args is None else _texts(args, TEXT_LIMIT),
        "paths": None if paths is None else _texts(paths, TEXT_LIMIT),
        "hosts": None if hosts is None else _texts(hosts, TEXT_LIMIT),
        "params": None if params is None else _params(params),
        "session": None if session is None else _texts(session, LABEL_LIMIT),
        "from_": None if source is None else _from(source),
    }


def _command(value: Any) -> list[str | list[str]]:
    if type(value) is str:
        value = value.split()
    if type(value) is not list or not value:
        raise _Unchecked
    return [_text(word, TEXT_LIMIT) if type(word) is str else _list(word, TEXT_LIMIT)
            for word in value]  # fmt: skip


def _flags(value: Any) -> list[str]:
    flags = _texts(value, TEXT_LIMIT)
    for flag in flags:
        if not flag.startswith("-") or flag in ("-", "--"):
            raise _Unchecked  # not an option
        body = flag[1:]
        if not flag.startswith("--") and 1 < len(body) <= 3 and body.isalpha():
            raise _Unchecked  # a cluster of short options
    return flags


def _params(value: Any) -> dict[str, str | list[str]]:
    if type(value) is not dict or not value:
        raise _Unchecked
    return {
        _text(name, TEXT_LIMIT): _text(glob, TEXT_LIMIT)
        if type(glob) is str
        else _list(glob, TEXT_LIMIT)
        for name, glob in value.items()
    }


def _from(value: Any) -> FromLabels:
    if type(value) is str:
        value = {"labels": [value]}
    elif type(value) is list:
        value = {"labels": value}
    if type(value) is not dict or "labels" not in value or not value.keys() <= _FROM_KEYS:
        raise _Unchecked
    params = value.get("params")
    only = value.get("only")
    if only is not None and (type(only) is not str or only != "hosts"):
        raise _Unchecked
    return FromLabels(
        labels=_list(value["labels"], LABEL_LIMIT),
        params=None if params is None else _list(params, LABEL_LIMIT),
        only=only,
    )


def _examples(value: Any) -> list[str | dict[str, Any]]:
    if type(value) is not list:
        raise _Unchecked
    examples: list[str | dict[str, Any]] = []
    for example in value:
        if type(example) is str:
            examples.append(_text(example, TEXT_LIMIT))
        elif type(example) is dict and all(type(key) is str and _unicode(key) for key in example):
            examples.append(dict(example))
        else:
            raise _Unchecked
    return examples


def _texts(value: Any, limit: int) -> list[str]:
    """A list of texts; a lone string is that one item (``hosts = "github.com"``)."""
    return [_text(value, limit)] if type(value) is str else _list(value, limit)


def _list(value: Any, limit: int) -> list[str]:
    if type(value) is not list or not value:
        raise _Unchecked
    return [_text(item, limit) for item in value]


def _text(value: Any, limit: int) -> str:
    if type(value) is not str or not 0 < len(value) <= limit or not _unicode(value):
        raise _Unchecked
    return value


def _unicode(value: str) -> bool:
    """Text the models read as text: a lone surrogate (which no TOML file holds) they refuse."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_decision(value: Any) -> bool:
    return type(value) is str and value in DECISIONS


# -- the models' result, copied into the records ---------------------------------------------


def rule_of(model: Any) -> RuleTable:
    """A ``RuleConfig`` the models validated, as the record the hand check would have made."""
    unless = model.unless
    return RuleTable(
        **_conditions_of(model),
        id=model.id,
        tools=model.tools,
        decision=model.decision,
        label=model.label,
        reason=model.reason,
        unless=None if unless is None else ConditionsTable(**_conditions_of(unless)),
        match=model.match,
        not_match=model.not_match,
    )


def options_of(model: Any) -> RulesOptions:
    """A ``RulesSettings`` as a record."""
    return RulesOptions(
        unmatched=model.unmatched, opaque=model.opaque, protect_own_state=model.protect_own_state
    )


def _conditions_of(model: Any) -> dict[str, Any]:
    values = {name: getattr(model, name) for name in ConditionsTable._fields}
    source = values["from_"]
    if source is not None:
        values["from_"] = FromLabels(labels=source.labels, params=source.params, only=source.only)
    return values
