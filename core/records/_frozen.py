"""Read-only views of tool call params, and the canonical bytes their digest is taken over.

Handlers receive params they cannot mutate in place, so that a plugin changing a nested list by
accident can never change what executes. The views subclass ``dict`` and ``list`` so that
``isinstance`` checks, ``json.dumps`` and pydantic validation keep working on them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NoReturn

from .._public import public
from ._errors import ParamsError
from ._json import canonical_json as canonical_json

MAX_PARAM_DEPTH = 64
SCALARS = frozenset({str, int, float, bool, type(None), bytes})
"""Types that are their own read-only copy."""


def _read_only(*_args: object, **_kwargs: object) -> NoReturn:
    raise TypeError(
        "tool call params are read-only; return {'params': {...}} from the hook to change them"
    )


class FrozenDict(dict[str, Any]):
    """A ``dict`` whose mutating methods raise ``TypeError``."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def copy(self) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __copy__(self) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (thaw(self),))


class FrozenList(list[Any]):
    """A ``list`` whose mutating methods raise ``TypeError``."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def copy(self) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __copy__(self) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (thaw(self),))


class FrozenSetParam(frozenset[Any]):
    """A ``set`` param, frozen; thawed back into a ``set``."""

    __slots__ = ()


EMPTY_PARAMS = FrozenDict()
"""The params of a call that has none; read-only, so one shared instance serves every call."""


def freeze_params(params: Mapping[str, Any]) -> FrozenDict:
    """Return a read-only deep copy of ``params``; raise :class:`ParamsError` if it cannot be."""
    kind = type(params)
    if kind is FrozenDict:
        return params  # type: ignore[return-value]
    if kind is not dict and not isinstance(params, Mapping):
        raise ParamsError(f"params must be a mapping, got {type(params).__name__}")
    if not params:
        return EMPTY_PARAMS
    # The common case, flat JSON with str keys and scalar values, is one shallow copy.
    for key, value in params.items():
        if type(value) not in SCALARS or type(key) is not str:
            frozen: FrozenDict = _freeze(params, (), 0)
            return frozen
    return FrozenDict(params)


def freeze_value(value: Any, where: str = "value") -> Any:
    """Freeze one value written by a hook (the field path ``where`` names it in errors)."""
    if type(value) in SCALARS:
        return value
    return _freeze(value, (where,), 1)


def _freeze(
    value: Any, path: tuple[str, ...], depth: int, active: frozenset[int] = frozenset()
) -> Any:
    kind = type(value)
    if kind in SCALARS:
        return value
    where = ".".join(path) or "params"
    if depth > MAX_PARAM_DEPTH:
        raise ParamsError(f"{where} is nested deeper than {MAX_PARAM_DEPTH} levels")
    if id(value) in active:
        raise ParamsError(f"{where} contains a reference cycle")
    inner = active | {id(value)}
    if isinstance(value, Mapping):
        frozen: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ParamsError(f"{where} has a key {key!r} that is not a string")
            frozen[key] = _freeze(item, (*path, key), depth + 1, inner)
        return FrozenDict(frozen)
    if isinstance(value, (list, tuple)):
        items = [_freeze(item, (*path, f"[{i}]"), depth + 1, inner) for i, item in enumerate(value)]
        return FrozenList(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, (set, frozenset)):
        members = [_freeze(item, (*path, "{}"), depth + 1, inner) for item in value]
        return FrozenSetParam(members) if isinstance(value, set) else frozenset(members)
    if isinstance(value, (str, int, float, bytes)):  # subclasses such as enum.IntEnum
        return value
    raise ParamsError(
        f"{where} has unsupported type {kind.__name__} (tool params must be JSON-like: "
        "str, int, float, bool, None, bytes, dict, list, tuple, set)"
    )


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a frozen value (what a tool receives)."""
    kind = type(value)
    if kind in SCALARS:
        return value
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    if isinstance(value, tuple):
        return tuple(thaw(item) for item in value)
    if kind is FrozenSetParam:
        return {thaw(item) for item in value}
    return value


def thaw_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``thaw`` for a params mapping, with flat params (the common case) copied in one step."""
    if not params:
        return {}
    for value in params.values():
        if type(value) not in SCALARS:
            return {key: thaw(item) for key, item in params.items()}
    return dict(params)


def params_digest(
    tool: str, params: Mapping[str, Any], sender_id: str | None, session_id: str | None
) -> str:
    """sha256 over tool, params, sender and session: what an approval is bound to."""
    payload = canonical_json([tool, params, sender_id, session_id])
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


public("toolhooks", FrozenDict, FrozenList, thaw)
