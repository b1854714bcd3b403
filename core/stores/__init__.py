"""Where paused calls wait: the ``ApprovalStore`` contract and its memory, SQLite and Redis
implementations, and the ``[state] url`` connection they and the shared plugins use. Above
``events``.

The label store (labels, labelled result tokens and trusted tokens per session, for ``rules``'
``session`` and ``from``) is re-exported here: ``LabelStore`` and its memory, SQLite and Redis
implementations (the last two imported when first named), ``Provenance``, and the token
functions ``text_tokens`` / ``value_tokens`` / ``result_tokens`` and ``names_host``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._labels import LabelStore
    from ._labels_memory import MemoryLabelStore
    from ._labels_redis import RedisLabelStore
    from ._labels_sqlite import SQLiteLabelStore
    from ._provenance import Provenance
    from ._tokens import MIN_TOKEN, names_host, result_tokens, text_tokens, value_tokens

__all__ = [
    "MIN_TOKEN",
    "LabelStore",
    "MemoryLabelStore",
    "Provenance",
    "RedisLabelStore",
    "SQLiteLabelStore",
    "names_host",
    "result_tokens",
    "text_tokens",
    "value_tokens",
]

_LAZY = {
    "LabelStore": "._labels",
    "Provenance": "._provenance",
    "MemoryLabelStore": "._labels_memory",
    "RedisLabelStore": "._labels_redis",
    "SQLiteLabelStore": "._labels_sqlite",
    "MIN_TOKEN": "._tokens",
    "names_host": "._tokens",
    "result_tokens": "._tokens",
    "text_tokens": "._tokens",
    "value_tokens": "._tokens",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
