"""The runtime's label store and trusted input: ``rt.label_store``, ``rt.trust``, ``rt.atrust``.

The store (labels per session, labelled result tokens, trusted tokens) follows ``[state] url``
like the other shared state: Redis when it is set (every process of a fleet sees the same
labels), else this process's memory. A bridge whose every call is a new process sets a SQLite
one (``rt.label_store = SQLiteLabelStore(path)``) before the first call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config._settings import LoadedConfig
    from ..stores._labels import LabelStore
    from ..stores._state import SharedState

# The label store's modules are imported with the first use of the store: a runtime whose
# plugins never label anything does not pay for them at start (BENCHMARKS.md, the cold process).


class RuntimeLabels:
    """Mixed into Runtime: where labels live, and what the user said."""

    config: LoadedConfig
    state: SharedState | None
    _label_store: LabelStore | None = None

    @property
    def label_store(self) -> LabelStore:
        """The label store (made on first use from ``[state]``); assignable before use."""
        store = self._label_store
        if store is None:
            if self.state is not None:
                from ..stores._labels_redis import RedisLabelStore

                store = RedisLabelStore(self.state, ttl_s=self.config.state.session_ttl_s)
            else:
                from ..stores._labels_memory import MemoryLabelStore

                store = MemoryLabelStore()
            self._label_store = store
        return store

    @label_store.setter
    def label_store(self, store: LabelStore) -> None:
        self._label_store = store

    def trust(self, session_id: str, text: str) -> None:
        """Record ``text`` as the user's own words in the session: a value holding only tokens
        the user said never counts as coming from a labelled result (``from`` conditions).

        The adapters call it with each user message and the coding-agent bridges with each
        prompt; an application that takes input from its user some other way calls it too.
        Raises ``StoreError`` / ``StateUnavailable`` when the store cannot be written.
        """
        if not isinstance(session_id, str) or not session_id:
            raise ValueError("trust needs the session id the calls will carry")
        if not isinstance(text, str):
            raise TypeError(f"trust takes the user's text, got {type(text).__name__}")
        from ..stores._tokens import text_tokens

        tokens = text_tokens(text)
        if tokens:
            self.label_store.trust(session_id, tokens)

    async def atrust(self, session_id: str, text: str) -> None:
        """:meth:`trust`, awaited: a store that does I/O runs on a worker thread."""
        from ..stores._labels_memory import MemoryLabelStore

        if isinstance(self.label_store, MemoryLabelStore):
            self.trust(session_id, text)
        else:
            import asyncio  # imported here: it is most of a synchronous runtime's added start

            await asyncio.to_thread(self.trust, session_id, text)
