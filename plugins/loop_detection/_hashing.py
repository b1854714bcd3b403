"""Call signatures and outcome hashes: what "the same call" and "the same result" mean.

A call's signature is a 64-bit hash of ``<tool name> NUL <key-sorted compact JSON of the params>``
(far too wide to collide within a window): Python's keyed in-process hash while the windows live
in this process, sha256 (its first 8 bytes) once they are shared with other processes
(``Signer(stable=True)``), where every process must compute the same one. In-process, params
that are plain scalars (most calls) skip the text: their signature is hash() of a tuple that
tells apart exactly what the text would (``_flat_key``).
The JSON is :func:`toolhooks.kit.canonical_json`, the text approval digests are taken over too:
bytes, sets, NaN, non-string keys, arbitrary objects and even cycles encode deterministically, so
hashing never raises. An outcome hash is Python's keyed in-process string
hash of the status and the result text (8 bytes, never zero); it is never persisted, so it need
not be stable across processes, and it is one pass over the text with no copy.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any

from toolhooks import ToolResult
from toolhooks.kit import canonical_json as canonical
from toolhooks.kit import name_patterns

_SIG_MASK = (1 << 64) - 1
_OUT_MASK = (1 << 62) - 1
_OUT_BIT = 1 << 62  # set in every hashed outcome: never zero (NO_OUTCOME), never UNKNOWN_TOOL
UNKNOWN_TOOL = (1).to_bytes(8, "little")
"""The outcome recorded for a call that failed because the runtime does not know the tool."""


class Signer:
    """Computes call signatures; ignored keys are resolved once per tool name and cached."""

    __slots__ = ("_by_tool", "_cache", "_global", "stable")

    _CACHE_LIMIT = 4096

    def __init__(
        self,
        ignore: Collection[str],
        by_tool: Mapping[str, Collection[str]],
        stable: bool = False,
    ) -> None:
        self.stable = stable
        """True: the same signature in every process (sha256), for windows kept in shared state."""
        self._global = frozenset(ignore)
        self._by_tool = [
            (name_matcher([pattern]), frozenset(keys)) for pattern, keys in by_tool.items()
        ]
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
        ignored = self.ignored(tool) if self._by_tool else self._global
        if ignored and not ignored.isdisjoint(params):
            params = {key: value for key, value in params.items() if key not in ignored}
        if not self.stable:
            key = _flat_key(tool, params)
            if key is not None:
                return (hash(key) & _SIG_MASK).to_bytes(8, "little")
        flat = _flat_json(params)
        if flat is None:
            data = f"{tool}\x00{canonical(params)}".encode("utf-8", "surrogatepass")
        else:
            data = tool.encode("utf-8", "surrogatepass") + b"\x00" + flat
        if self.stable:
            return hashlib.sha256(data).digest()[:8]
        # hash() is keyed SipHash, a quarter of sha256's cost (BENCHMARKS.md)
        return (hash(data) & _SIG_MASK).to_bytes(8, "little")


_SCALARS = frozenset((str, int, bool, type(None)))
_EXACT_INT = sys.hash_info.modulus
"""hash(n) == n for every int strictly between -_EXACT_INT and _EXACT_INT, but -1 (it gives -2)."""


def _flat_key(tool: str, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """``(tool, key, type, value, ...)`` over key-sorted params, when they are string keys to
    plain scalars whose hash() tells them apart; else None.

    The in-process signature is hash() of this tuple, a quarter of the cost of encoding the
    JSON text and hashing it (BENCHMARKS.md, choices made for speed). It separates what
    the JSON text does: the type is in the tuple (True and 1 hash alike, "true" and "1" differ),
    and ints whose hash is not themselves (-1, beyond 2**61) take the JSON way. The tuple hash
    mixes each item's hash in turn, strings with the keyed SipHash: as wide as the text's.
    """
    if len(params) == 1:
        [(name, value)] = params.items()
        if type(value) is str and type(name) is str:  # most calls: no sort, no loop
            return (tool, name, str, value)
        items: Any = ((name, value),)
    else:
        try:
            items = sorted(params.items())
        except TypeError:  # keys that do not compare: not a plain JSON object
            return None
    key: list[Any] = [tool]
    for name, value in items:
        kind = type(value)
        if type(name) is not str or kind not in _SCALARS:
            return None
        if kind is int and (value == -1 or not -_EXACT_INT < value < _EXACT_INT):
            return None
        key += (name, kind, value)
    return tuple(key)


def _flat_json(params: Mapping[str, Any]) -> bytes | None:
    """Key-sorted JSON of params that are string keys to plain scalars, else None.

    Most calls look like this (``{"path": ...}``, ``{"command": ..., "timeout": 30}``), and
    pydantic_core's encoder halves their signature's cost (BENCHMARKS.md, choices made for speed; the stdlib encoder is most of
    the canonical path's cost). The text cannot equal the canonical
    text of other params: both are JSON, and what the canonical path sees always holds a float,
    a container or a tagged object, which this text never does. Exact types only: a str or int
    subclass (an enum, say) goes the canonical way, which describes it.
    """
    try:
        items = sorted(params.items())
    except TypeError:  # keys that do not compare: not a plain JSON object
        return None
    for key, value in items:
        if type(key) is not str or type(value) not in _SCALARS:
            return None
    try:
        return (_to_json or _imported_to_json())(dict(items))
    except ValueError:  # a lone surrogate, an int too large: the canonical path handles them
        return None


_to_json: Callable[..., bytes] | None = None


def _imported_to_json() -> Callable[..., bytes]:
    """``pydantic_core.to_json``, imported by the first signature that needs it: in-process
    signatures of plain params never do, and a process that makes none does not pay the import
    (88 M instructions of a cold one, BENCHMARKS.md)."""
    global _to_json
    from pydantic_core import to_json

    _to_json = to_json
    return to_json


def name_matcher(patterns: Collection[str]) -> Callable[[str], bool]:
    """One predicate for a list of tool names / ``*`` patterns."""
    return name_patterns(patterns).__contains__


def outcome_hash(result: ToolResult) -> bytes:
    """An 8-byte hash of how a call ended: status plus the result text.

    ok: the content the model will see (the value's JSON when the content is empty); error: the
    error message; blocked / denied: the reason. A call that failed because the tool is unknown
    gets the fixed :data:`UNKNOWN_TOOL` outcome.
    """
    status = result.status
    text: Any
    if result.error_kind == "unknown_tool":
        return UNKNOWN_TOOL
    if status == "ok":
        text = result.content
        if not text:
            text = "$value:" + canonical(result.value)
    else:
        text = result.error
        if text is None:
            text = result.content
    if type(text) is not str:
        text = canonical(text)
    return ((hash((status, text)) & _OUT_MASK) | _OUT_BIT).to_bytes(8, "little")
