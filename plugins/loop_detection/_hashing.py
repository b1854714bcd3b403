"""Call signatures and outcome hashes: what "the same call" and "the same result" mean.

A call's signature is sha256 over ``<tool name> NUL <key-sorted compact JSON of the params>``,
of which the first 8 bytes are kept (far too wide to collide within a window).
The JSON is total: bytes, sets, NaN, non-string keys, arbitrary objects and even cycles encode
deterministically, so hashing never raises. An outcome hash is Python's keyed in-process string
hash of the status and the result text (8 bytes, never zero); it is never persisted, so it need
not be stable across processes, and it is one pass over the text with no copy.
"""

from __future__ import annotations

import base64
import hashlib
import json
import json.encoder
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from toolhooks import ToolResult

_OUT_MASK = (1 << 62) - 1
_OUT_BIT = 1 << 62  # set in every hashed outcome: never zero (NO_OUTCOME), never UNKNOWN_TOOL
UNKNOWN_TOOL = (1).to_bytes(8, "little")
"""The outcome recorded for a call that failed because the runtime does not know the tool."""
_MAX_DEPTH = 100
_MAX_REPR = 2_000
_MAX_INT_BITS = 4_000 * 3  # safely below the default 4300-digit str() limit
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
_sha256 = hashlib.sha256


def _default(value: Any) -> Any:
    """JSON for what the encoder does not know: tagged bytes and sets, described objects."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(_ENCODER.encode(item) for item in value)}
    return _describe(value)


_ENCODER = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=True,
    sort_keys=True,
    separators=(",", ":"),
    default=_default,
)
_encode: Callable[[Any], str] = _ENCODER.encode
# The C encoder called directly skips JSONEncoder's per-call setup (about half the cost).
# markers=None: no shared cycle bookkeeping (so it is thread-safe); a cycle recurses until
# RecursionError, and the fallback in canonical() handles it.
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_iterencode: Callable[[Any, int], Any] | None = (
    None
    if _c_make_encoder is None
    else _c_make_encoder(
        None, _default, json.encoder.encode_basestring, None, ":", ",", True, False, True
    )
)


def fast_json(value: Any) -> str:
    """Key-sorted compact JSON; may raise (then :func:`canonical` is the answer)."""
    if _iterencode is None:  # pragma: no cover
        return _encode(value)
    return "".join(_iterencode(value, 0))


def _describe(value: Any) -> dict[str, str]:
    """A deterministic stand-in for an object JSON cannot hold: its type and its repr.

    Memory addresses (``<Foo object at 0x7f...>``) are stripped, so two such objects of one type
    with default reprs hash alike, in every process.
    """
    kind = type(value)
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break the call
        text = "<unrepresentable>"
    return {
        "$object": f"{kind.__module__}.{kind.__qualname__}",
        "repr": _ADDRESS.sub("", text[:_MAX_REPR]),
    }


def _plain(value: Any, depth: int, active: frozenset[int]) -> Any:
    """Rebuild ``value`` from JSON-safe parts only (the slow path, after the encoder refused)."""
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value.bit_length() > _MAX_INT_BITS
    ):
        return {"$int": hex(value)}  # str() of a huge int is refused (sys.set_int_max_str_digits)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if depth > _MAX_DEPTH:
        return {"$deep": depth}
    marker = id(value)
    if marker in active:
        return {"$cycle": True}
    inner = active | {marker}
    if isinstance(value, Mapping):
        items: dict[str, Any] = {}
        for key, item in value.items():
            label = (
                key if isinstance(key, str) else "$key:" + _encode(_plain(key, depth + 1, inner))
            )
            items[label] = _plain(item, depth + 1, inner)
        return items
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1, inner) for item in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(_encode(_plain(item, depth + 1, inner)) for item in value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _default(value)
    return _describe(value)


def canonical(value: Any) -> str:
    """Key-sorted compact JSON of ``value``; never raises, same input gives the same text."""
    try:
        return _encode(value)
    except Exception:  # non-string keys, cycles, a hostile __repr__ inside a set ...
        pass
    try:
        return _encode(_plain(value, 0, frozenset()))
    except Exception:  # pragma: no cover - _plain only yields encodable values
        return json.dumps(_describe(value), sort_keys=True)


class Signer:
    """Computes call signatures; ignored keys are resolved once per tool name and cached."""

    __slots__ = ("_by_tool", "_cache", "_global")

    _CACHE_LIMIT = 4096

    def __init__(self, ignore: Collection[str], by_tool: Mapping[str, Collection[str]]) -> None:
        self._global = frozenset(ignore)
        self._by_tool = [(_matcher(pattern), frozenset(keys)) for pattern, keys in by_tool.items()]
        self._cache: dict[str, frozenset[str]] = {}

    def ignored(self, tool: str) -> frozenset[str]:
        """The param keys left out of ``tool``'s signature."""
        if not self._by_tool:
            return self._global
        cache = self._cache
        found = cache.get(tool)
        if found is None:
            found = self._global.union(*(keys for match, keys in self._by_tool if match(tool)))
            if len(cache) >= self._CACHE_LIMIT:
                cache.clear()
            cache[tool] = found
        return found

    def sign(self, tool: str, params: Mapping[str, Any]) -> bytes:
        """The 8-byte signature of a call to ``tool`` with ``params``."""
        ignored = self.ignored(tool)
        if ignored and not ignored.isdisjoint(params):
            params = {key: value for key, value in params.items() if key not in ignored}
        try:
            text = fast_json(params)
        except Exception:
            text = canonical(params)
        data = f"{tool}\x00{text}".encode("utf-8", "surrogatepass")
        return _sha256(data).digest()[:8]


def _matcher(pattern: str) -> Callable[[str], bool]:
    """Match a tool name against ``pattern``; ``*`` is the only wildcard."""
    if "*" not in pattern:
        return pattern.__eq__
    regex = re.compile(".*".join(re.escape(part) for part in pattern.split("*")) + r"\Z", re.DOTALL)
    return lambda name: regex.match(name) is not None


def name_matcher(patterns: Collection[str]) -> Callable[[str], bool]:
    """One predicate for a list of tool names / ``*`` patterns (exact names via a set lookup)."""
    exact = frozenset(p for p in patterns if "*" not in p)
    wild = [_matcher(p) for p in patterns if "*" in p]
    if not wild:
        return exact.__contains__
    return lambda name: name in exact or any(match(name) for match in wild)


def _text(value: Any) -> str:
    return value if type(value) is str else canonical(value)


def outcome_hash(result: ToolResult) -> bytes:
    """An 8-byte hash of how a call ended: status plus the result text.

    ok: the content the model will see (the value's JSON when the content is empty); error: the
    error message; blocked / denied: the reason. A call that failed because the tool is unknown
    gets the fixed :data:`UNKNOWN_TOOL` outcome.
    """
    status = result.status
    if result.error_kind == "unknown_tool":
        return UNKNOWN_TOOL
    if status == "ok":
        content = result.content
        text = _text(content) if content else "$value:" + canonical(result.value)
    else:
        error = result.error
        text = _text(error if error is not None else result.content)
    return ((hash((status, text)) & _OUT_MASK) | _OUT_BIT).to_bytes(8, "little")
