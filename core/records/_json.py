"""JSON in toolhooks: the canonical text digests are taken over, and the bytes of a log line.
(Over 300 lines on purpose: both encoders and the rules they share sit side by side, so a rule
cannot change in one and not the other.)

Decided once for both (PLUGINS.md, "Added with the hot path"):

- bytes (``bytearray``, ``memoryview``) become ``{"$bytes": "<base64>"}``: lossless, and never
  mistaken for a string;
- text is written as UTF-8, not ``\\u`` escapes (control characters are still escaped, so a line
  never breaks); a lone surrogate, which UTF-8 cannot hold, gets its ``\\udc80`` escape in a log
  line (it reads back as itself) and is passed through in canonical text (``surrogatepass`` when
  hashed);
- NaN and infinities are ``null`` in a log line (JSON has no NaN; JavaScript and orjson do the
  same) but ``NaN`` / ``Infinity`` in canonical text, so a digest never confuses them with None;
- floats are spelled like Python's ``repr``; integers too long for ``str()`` become
  ``{"$int": "0x..."}``.

:func:`json_line` always gives the stdlib encoder's bytes (the reference), through a faster
encoder where that cannot differ from it: orjson when it is installed (``toolhooks[fast]``, see
:func:`_orjson_line`) and imported, else ``pydantic_core.to_json`` once the process has imported
pydantic_core (see :func:`_agreed`), else the stdlib's. Per event of a default call (callgrind):
orjson's path 14k instructions, pydantic_core's 37k (the walk that decides it may be used is 20k
of them), the stdlib's 56k. pydantic_core is not imported for log lines alone: that costs a cold
process 88 M instructions (BENCHMARKS.md), what its encoder saves over some 4,600 events, and any
process that builds a pydantic model (a tool from a signature, a given config table) has
imported it anyway. orjson is imported (when installed and not imported already) once the
process has written ``ORJSON_AFTER`` lines: its import costs a cold process 10 M instructions
(with the ``uuid`` and ``platform`` it imports), what it saves over some 250 lines, so a hook's
process, which writes a handful, never pays it and a long-lived one pays it once.
:func:`canonical_json` always uses the stdlib: its text is hashed, and a digest must not depend
on which extras a process installed.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._public import public
from ._plain import Record

orjson: Any = sys.modules.get("orjson")
"""orjson once imported (at once if something in the process imported it already)."""
ORJSON_AFTER = 256
"""The lines a process writes before it imports orjson for them (see the module docstring)."""
_orjson_missing = False
_lines_written = 0

REPR_LIMIT = 200
_MAX_DEPTH = 300  # deeper than the fast paths nest (orjson 254, pydantic_core 254 levels)
_PLAIN_DEPTH = 200  # deeper values go to the stdlib, which cuts them at _MAX_DEPTH
_PLAIN_INT = 1 << 64  # wider ints go to the stdlib (it describes those str() refuses)
_DESCRIBE_LIMIT = 2_000
_ADDRESS = r" at 0x[0-9A-Fa-f]+"
_SURROGATE = "[\ud800-\udfff]"
"""(Both compiled when first used: a lone surrogate or an object's address is rare.)"""
_DIGITS = frozenset(b"0123456789")


def short(text: str) -> str:
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 3] + "..."


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to 200 characters; never raises (a failing ``__repr__`` is named)."""
    try:
        return short(repr(value))
    except Exception:
        return f"<unrepresentable {type(value).__name__}>"


def tag_bytes(value: bytes | bytearray | memoryview) -> dict[str, str]:
    import base64  # with the first bytes value, not at start (base64 imports struct, binascii)

    return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}


# -- log lines -----------------------------------------------------------------------------------


def _line_default(value: Any) -> Any:
    """What a log line holds for a value JSON has no type for (and for subclasses of the types it
    has, so both encoders read them the way the stdlib does). Never raises."""
    try:
        # Subclasses of JSON's types, read the way the stdlib's C encoder reads them: a dict
        # through items(), a list or tuple through iteration, a str, int or float by its value.
        if isinstance(value, dict):  # FrozenDict, the params in most events: first
            return dict(value.items())
        if isinstance(value, (list, tuple)):
            return list(value)
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, int):  # IntEnum too: the stdlib writes its number
            return int.__int__(value)
        if isinstance(value, float):
            return float.__float__(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return tag_bytes(value)
        if isinstance(value, (set, frozenset)):
            return list(value)
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
            return value.isoformat()
        import uuid  # here, past the usual kinds: not imported at start (12 M, BENCHMARKS.md)

        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, BaseException):
            return short(f"{type(value).__name__}: {value}")
        dump = getattr(value, "model_dump", None)
        if callable(dump) and not isinstance(value, type):
            return dump(mode="json")
        names = _field_names(value)
        if names is not None:
            return {name: short_repr(getattr(value, name, None)) for name in names}
    except Exception:
        pass
    return short_repr(value)


def _field_names(value: Any) -> Iterable[str] | None:
    """A record's field names: a dataclass instance's, or a ``Record``'s (read the same way)."""
    if isinstance(value, Record):
        return value._fields
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value)]
    return None


_STDLIB_LINE = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_line_default
)
_ORJSON_OPTIONS = 0


def _load_orjson() -> Any:
    """Import orjson (None when it is not installed, remembered), and its options."""
    global orjson, _ORJSON_OPTIONS, _orjson_missing
    try:
        import orjson as module
    except ImportError:
        _orjson_missing = True
        return None
    _ORJSON_OPTIONS = (
        module.OPT_PASSTHROUGH_SUBCLASS
        | module.OPT_PASSTHROUGH_DATETIME
        | module.OPT_PASSTHROUGH_DATACLASS
    )
    orjson = module
    return module


if orjson is not None:
    _load_orjson()


def _key(key: Any) -> str:
    """A dict key as the stdlib spells it; keys it refuses are described."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, float):
        return float.__repr__(key)
    if isinstance(key, int):
        try:
            return int.__repr__(key)
        except ValueError:
            return f"$int:{hex(key)}"
    converted = _line_default(key)
    return converted if isinstance(converted, str) else short_repr(key)


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _utf8(text: str) -> bytes:
    """JSON text as UTF-8. A lone surrogate (UTF-8 has none) can only sit inside a string there,
    where its ``\\u`` escape reads back as the same character."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, _escape_surrogate, text).encode("utf-8")


def sanitize(
    value: Any,
    max_str: int | None = None,
    max_items: int | None = None,
    shorten: Callable[[str, int], str] | None = None,
    _depth: int = 0,
    _active: frozenset[int] = frozenset(),
) -> Any:
    """A copy of ``value`` any encoder takes: str keys, finite floats, UTF-8-safe text, bounded
    depth, no cycles; strings over ``max_str`` go through ``shorten`` and containers keep
    ``max_items``. Reads values exactly as :func:`json_line` does otherwise."""
    if value is None or value is True or value is False:
        return value
    if type(value) is str:
        if max_str is not None and len(value) > max_str and shorten is not None:
            return shorten(value, max_str)
        return value
    if type(value) is int:
        try:
            int.__repr__(value)
        except ValueError:  # more digits than int -> str conversion allows
            return {"$int": hex(value)}
        return value
    if type(value) is float:
        return value if math.isfinite(value) else None
    if _depth >= _MAX_DEPTH:
        return "<nested too deep>"
    if id(value) in _active:
        return "<cycle>"
    inner = _active | {id(value)}
    again = (max_str, max_items, shorten, _depth + 1, inner)
    if type(value) is dict:
        items = list(value.items())
        out: dict[str, Any] = {}
        for key, item in items[:max_items]:
            out[_key(key)] = sanitize(item, *again)
        if max_items is not None and len(items) > max_items:
            out["_more_items"] = len(items) - max_items
        return out
    if type(value) is list:
        seq = [sanitize(item, *again) for item in value[:max_items]]
        if max_items is not None and len(value) > max_items:
            seq.append(f"... {len(value) - max_items} more items")
        return seq
    if type(value) is tuple:
        return sanitize(list(value), *again)
    return sanitize(_line_default(value), *again)


def _stdlib_line(value: Any) -> bytes:
    try:
        text = _STDLIB_LINE.encode(value)
    except Exception:  # NaN, a cycle, a refused key, too deep ...
        text = _STDLIB_LINE.encode(sanitize(value))
    return _utf8(text)


_INHERITED: dict[type, tuple[str, ...]] = {
    dict: ("__iter__", "__len__", "__getitem__", "keys", "values", "items"),
    list: ("__iter__", "__len__", "__getitem__"),
}
_plain_containers: dict[type, bool] = {dict: True, list: True}


def _reads_as(kind: type, base: type) -> bool:
    """Whether a ``dict`` or ``list`` subclass reads its items the way its base does (FrozenDict,
    FrozenList): the stdlib calls ``items()`` / iterates a subclass, pydantic_core reads the
    storage, and the two agree only if the subclass changed neither."""
    known = _plain_containers.get(kind)
    if known is None:
        known = all(getattr(kind, name) is getattr(base, name) for name in _INHERITED[base])
        _plain_containers[kind] = known
    return known


def _agreed(value: Any, depth: int = 0) -> bool:
    """Whether pydantic_core and the stdlib encode ``value`` to the same bytes: str keys; str,
    bool, None, 64-bit int and float values (exact types); dicts, lists (and subclasses that read
    alike) and tuples. pydantic_core has its own way with bytes, datetimes, enums, dataclasses,
    sets, non-str keys, and with floats below 1e-4 (``0.00001`` and ``1e-7`` where ``repr`` says
    ``1e-05`` and ``1e-07``; it agrees with ``repr`` on every other float, NaN included as null):
    those go to the stdlib. Checking floats here costs less than searching the line for those
    spellings afterwards (0.9 µs a line, two ``bytes.find``)."""
    kind = type(value)
    if kind is dict or (isinstance(value, dict) and _reads_as(kind, dict)):
        if depth >= _PLAIN_DEPTH:  # a cycle ends here too
            return False
        for key in value:
            if type(key) is not str:
                return False
        return _items_agreed(value.values(), depth)
    if kind is list or kind is tuple or (isinstance(value, list) and _reads_as(kind, list)):
        if depth >= _PLAIN_DEPTH:
            return False
        return _items_agreed(value, depth)
    if kind is str or value is None or kind is bool:
        return True
    if kind is int:
        return bool(-_PLAIN_INT < value < _PLAIN_INT)
    if kind is float:
        return not (-1e-4 < value < 1e-4 and value)
    return False


def _items_agreed(items: Iterable[Any], depth: int) -> bool:
    """``_agreed`` for every item of a container at ``depth``; the common scalars inline."""
    for item in items:
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is float:
            if -1e-4 < item < 1e-4 and item:
                return False
        elif not _agreed(item, depth + 1):
            return False
    return True


_to_json: Callable[..., bytes] | None = None
"""``pydantic_core.to_json``, once :func:`json_line` has found pydantic_core imported."""


def _loaded_to_json() -> Callable[..., bytes] | None:
    """``pydantic_core.to_json`` if something in the process imported pydantic_core (kept for the
    next line), else None. The attribute, not the module's presence, is checked: another thread
    may be importing it right now."""
    global _to_json
    _to_json = getattr(sys.modules.get("pydantic_core"), "to_json", None)
    return _to_json


def _imported_to_json() -> Callable[..., bytes]:
    from pydantic_core import to_json

    return to_json


def _pydantic_line(value: Any) -> bytes:
    if _agreed(value):
        encode = _to_json or _imported_to_json()  # unset when called directly (tests)
        try:
            return encode(value, inf_nan_mode="null")
        except Exception:  # a lone surrogate (UTF-8 has none): the stdlib escapes it
            pass
    return _stdlib_line(value)


def _may_differ(line: bytes) -> bool:
    """Whether orjson's ``line`` may spell a float unlike ``repr``: it writes floats below 1e-4
    as ``0.00001`` (repr: ``1e-05``) and ``1e-7`` (repr: ``1e-07``). A hit inside a string only
    costs a stdlib re-encode. Byte searches: a regex here cost several times more."""
    if b"0.0000" in line:
        return True
    at = line.find(b"e-")
    while at > 0:
        one_digit_exponent = line[at + 2 : at + 3].isdigit() and not line[at + 3 : at + 4].isdigit()
        if one_digit_exponent and line[at - 1] in _DIGITS:
            return True
        at = line.find(b"e-", at + 2)
    return False


def _orjson_line(value: Any) -> bytes:
    try:
        line: bytes = orjson.dumps(value, default=_line_default, option=_ORJSON_OPTIONS)
    except Exception:  # a non-str key, a huge int, a lone surrogate, a cycle: the stdlib decides
        return _stdlib_line(value)
    return _stdlib_line(value) if _may_differ(line) else line


def json_line(value: Any) -> bytes:
    """Compact UTF-8 JSON of ``value``, the stdlib reference's bytes whichever encoder made them.
    Never raises for values of the kinds events carry (anything unusual is described); a
    ``RecursionError`` from a caller already near the recursion limit is the one exception."""
    global _lines_written
    if orjson is not None:
        return _orjson_line(value)
    if not _orjson_missing:
        # Counted without a lock: two threads may count one line once, which moves the switch
        # by a line; both encoders give the same bytes.
        _lines_written += 1
        if _lines_written > ORJSON_AFTER and _load_orjson() is not None:
            return _orjson_line(value)
    if _to_json is not None or _loaded_to_json() is not None:
        return _pydantic_line(value)
    return _stdlib_line(value)


stdlib_line = _stdlib_line
"""The reference encoder, for tests that compare the paths."""
pydantic_line = _pydantic_line


def orjson_line(value: Any) -> bytes:
    """orjson's path (imported now if it was not), for tests that compare the paths."""
    if orjson is None and _load_orjson() is None:
        raise ImportError("orjson is not installed")
    return _orjson_line(value)


# -- canonical text ------------------------------------------------------------------------------


def _describe(value: Any) -> dict[str, str]:
    """A deterministic stand-in for an object JSON cannot hold: its type and its repr, memory
    addresses stripped (two default reprs of one type read alike, in every process)."""
    kind = type(value)
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break the call
        text = "<unrepresentable>"
    return {
        "$object": f"{kind.__module__}.{kind.__qualname__}",
        "repr": re.sub(_ADDRESS, "", text[:_DESCRIBE_LIMIT]),
    }


def _canonical_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return tag_bytes(value)
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(canonical_json(item) for item in value)}
    return _describe(value)


_CANONICAL = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=True,
    sort_keys=True,
    separators=(",", ":"),
    default=_canonical_default,
)


def _plain(value: Any, depth: int, active: frozenset[int]) -> Any:
    """``value`` rebuilt from parts the canonical encoder takes (after it refused the original)."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            int.__repr__(value)
        except ValueError:
            return {"$int": hex(value)}
        return value
    if value is None or isinstance(value, (str, bool, float)):
        return value
    if depth > _MAX_DEPTH:
        return {"$deep": depth}
    if id(value) in active:
        return {"$cycle": True}
    inner = active | {id(value)}
    if isinstance(value, Mapping):
        items: dict[str, Any] = {}
        for key, item in value.items():
            label = key if isinstance(key, str) else "$key:" + canonical_json(key)
            items[label] = _plain(item, depth + 1, inner)
        return items
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1, inner) for item in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(canonical_json(_plain(item, depth + 1, inner)) for item in value)}
    return _canonical_default(value)


def canonical_json(value: Any) -> str:
    """Key-sorted, whitespace-free JSON text of ``value``: bytes and sets tagged, NaN kept, other
    objects described. Never raises; the same value gives the same text in every process."""
    try:
        return _CANONICAL.encode(value)
    except Exception:  # a non-string key, a cycle, a huge int, a hostile __repr__ in a set ...
        pass
    try:
        return _CANONICAL.encode(_plain(value, 0, frozenset()))
    except Exception:  # pragma: no cover - _plain only yields encodable values
        return json.dumps(_describe(value), sort_keys=True)


public("toolhooks.kit", canonical_json, json_line, sanitize, short_repr)
