"""A call's values as Cedar values: JSON integers are Longs, other numbers ``decimal``.

Cedar has no null (an attribute whose value is None is left out: ``context.input has x`` is
false), no float (a number that is not an integer is a ``decimal``, which holds at most four
digits after the point), and reads a record whose only key is ``__entity`` or ``__extn`` as an
entity reference or an extension value. A value Cedar cannot hold exactly, or a params object
spelled like one of those escapes (a model could forge ``{"__entity": ...}`` to pose as a role),
is :class:`Unrepresentable`: the plugin then blocks the call (fail closed), naming the param.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

MAX_DEPTH: Final = 32
"""Nesting deeper than this is refused before Cedar sees it (its own limits are deeper)."""
MAX_ITEMS: Final = 20_000
"""Values (strings, numbers, items) in one call's context, at most."""
LONG_MIN: Final = -(2**63)
LONG_MAX: Final = 2**63 - 1
DECIMAL_LIMIT: Final = Decimal("922337203685477.5807")
ESCAPES: Final = frozenset({"__entity", "__extn", "__expr"})


class Unrepresentable(ValueError):
    """A value Cedar cannot hold exactly; the message names where it is."""


def decimal(text: str) -> dict[str, Any]:
    """Cedar's JSON for ``decimal("text")``."""
    return {"__extn": {"fn": "decimal", "arg": text}}


def number_text(value: float | int, where: str) -> str:
    """``value`` as Cedar decimal text (``"12.5"``, ``"600.0"``)."""
    if type(value) is float:
        # The usual case without Decimal: repr is the shortest text that reads back as the
        # value, so "120.5" is exact when it has no exponent and at most four decimals.
        text = repr(value)
        point = text.find(".")
        if point > 0 and "e" not in text and len(text) - point <= 5 and abs(value) < 9e14:
            return text
    if isinstance(value, float) and value != value:
        raise Unrepresentable(f"{where}: NaN is not a number Cedar holds")
    try:
        exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise Unrepresentable(f"{where}: {value!r} is not a number Cedar holds") from None
    if not exact.is_finite() or abs(exact) > DECIMAL_LIMIT:
        raise Unrepresentable(f"{where}: {value!r} is out of the range of a Cedar decimal")
    exponent = exact.as_tuple().exponent
    assert isinstance(exponent, int)
    if exponent < -4:
        raise Unrepresentable(
            f"{where}: {value!r} has more than four digits after the point (a Cedar decimal "
            f"holds four)"
        )
    text = format(exact, "f")
    return text if "." in text else text + ".0"


class Converter:
    """Turns one call's values into Cedar JSON, counting them against :data:`MAX_ITEMS`."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items = 0

    def value(self, value: Any, where: str, schema: Any = None, depth: int = 0) -> Any:
        """The Cedar JSON of ``value``; ``schema`` (its JSON schema, if known) makes a JSON
        ``number`` param a decimal even when this value is an integer. Returns ``None`` for a
        value to leave out (None)."""
        self.items += 1
        if self.items > MAX_ITEMS:
            raise Unrepresentable(f"the call holds more than {MAX_ITEMS:,} values")
        kind = type(value)
        if kind is str:
            return value
        if kind is bool:
            return value
        if kind is int:
            if _says_number(schema):
                return decimal(number_text(value, where))
            if not LONG_MIN <= value <= LONG_MAX:
                raise Unrepresentable(f"{where}: {value} is out of the range of a Cedar Long")
            return value
        if kind is float:
            return decimal(number_text(value, where))
        if value is None:
            return None
        if depth >= MAX_DEPTH:
            raise Unrepresentable(f"{where}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, Mapping):
            return self.record(value, where, schema, depth + 1)
        if isinstance(value, (list, tuple)):
            items = _items_schema(schema)
            out = []
            for index, item in enumerate(value):
                converted = self.value(item, f"{where}[{index}]", items, depth + 1)
                if converted is not None:
                    out.append(converted)
            return out
        if isinstance(value, str):
            return str(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.value(int(value), where, schema, depth)
        if isinstance(value, float):
            return self.value(float(value), where, schema, depth)
        raise Unrepresentable(f"{where}: a {type(value).__name__} is not a JSON value")

    def record(
        self, value: Mapping[Any, Any], where: str, schema: Any = None, depth: int = 0
    ) -> dict[str, Any]:
        properties = _properties(schema)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise Unrepresentable(f"{where}: a key that is not a string ({key!r})")
            if key in ESCAPES:
                raise Unrepresentable(
                    f"{where}: the key {key!r} is how Cedar's JSON writes an entity or an "
                    f"extension value; a call's params may not use it"
                )
            converted = self.value(
                item, f"{where}.{key}" if where else key, properties.get(key), depth
            )
            if converted is not None:
                out[key] = converted
        return out


def _says_number(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "number"


def _properties(schema: Any) -> Mapping[str, Any]:
    if isinstance(schema, Mapping):
        found = schema.get("properties")
        if isinstance(found, Mapping):
            return found
    return {}


def _items_schema(schema: Any) -> Any:
    return schema.get("items") if isinstance(schema, Mapping) else None
