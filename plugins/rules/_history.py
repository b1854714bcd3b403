"""History conditions: ``session`` (the session carries one of these labels) and ``from`` (a
param value holds a token of an earlier labelled result that the user did not say).

Both are about the call as a whole, not one command of a script, and both read the runtime's
label store (memory, SQLite or Redis): :class:`HistoryView` reads it at most once per question
for one call. A store that cannot be read makes the condition unknown (``None``), which gives
the call the ``opaque`` decision, as any uncertainty does (fail closed).

``from`` takes a list of labels (every param counts, as DESIGN.md says), or a table that narrows
it: ``params`` (param names, dotted for nested: only these values count) and ``only = "hosts"``
(only tokens that name a host: ``www.evil.example``, ``evil.example/path``), so a policy can
follow where a message goes, not every word in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhooks import ToolhooksError
from toolhooks.kit import Record
from toolhooks.stores import LabelStore

from ._argv import Found, Tri

if TYPE_CHECKING:
    from toolhooks.stores import Provenance

    from ._tables import FromLabels


def history_given(conditions: Any) -> bool:
    return getattr(conditions, "session", None) is not None or (
        getattr(conditions, "from_", None) is not None
    )


class History(Record):
    """A conditions table's history conditions, compiled."""

    __slots__ = ("params", "session", "source")

    session: frozenset[str] | None
    source: FromLabels | None
    params: tuple[tuple[str, ...], ...] | None

    def __init__(
        self,
        *,
        session: frozenset[str] | None = None,
        source: FromLabels | None = None,
        params: tuple[tuple[str, ...], ...] | None = None,
    ) -> None:
        object.__setattr__(self, "session", session)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "params", params)

    @classmethod
    def of(cls, conditions: Any) -> History | None:
        if not history_given(conditions):
            return None
        source: FromLabels | None = conditions.from_
        session = conditions.session
        return cls(
            session=None if session is None else frozenset(session),
            source=source,
            params=None
            if source is None or source.params is None
            else tuple(tuple(name.split(".")) for name in source.params),
        )

    @property
    def labels(self) -> frozenset[str]:
        """Every label these conditions read (for the events)."""
        found = set(self.session or ())
        if self.source is not None:
            found |= set(self.source.labels)
        return frozenset(found)


class HistoryView:
    """One call's view of its session's history; each store question asked once (a plain
    class, not a dataclass: its generated methods would be compiled at every start)."""

    __slots__ = ("_answers", "_labels", "params", "session", "store", "used")

    def __init__(
        self, *, store: Callable[[], LabelStore | None], session: str, params: Mapping[str, Any]
    ) -> None:
        self.store = store
        self.session = session
        self.params = params
        self._labels: frozenset[str] | None = None
        self._answers: dict[tuple[Any, ...], Provenance | None] = {}
        self.used: list[dict[str, Any]] = []
        """What the history conditions that held found (for the ``rules.matched`` event)."""

    def check(self, history: History) -> Found:
        """Whether every history condition holds: True, False, or None (the store failed)."""
        store = self.store()
        if store is None:
            return Found(value=None, item="no label store", kind="history")
        try:
            verdict: Tri = True
            shown: list[str] = []
            if history.session is not None:
                if self._labels is None:
                    self._labels = store.labels(self.session)
                carried = history.session & self._labels
                if not carried:
                    return Found(value=False)
                shown.append(f"session labelled {', '.join(sorted(carried))}")
                self.used.append({"session": sorted(carried)})
            if history.source is not None:
                found = self._provenance(store, history)
                if found is None:
                    return Found(value=False)
                shown.append(f"value {found.describe()}")
                self.used.append(
                    {
                        "from": sorted(found.labels),
                        "token": found.token,
                        "overflow": found.overflow,
                    }
                )
        except (ToolhooksError, ValueError) as error:
            return Found(value=None, item=f"labels unavailable: {error}", kind="history")
        return Found(value=verdict, item="; ".join(shown), kind="history")

    def _provenance(self, store: LabelStore, history: History) -> Provenance | None:
        source = history.source
        assert source is not None
        key = (tuple(source.labels), history.params, source.only)
        if key in self._answers:
            return self._answers[key]
        if history.params is None:
            values: Any = self.params
        else:
            values = [v for path in history.params for v in _dig(self.params, path)]
        # Imported here: a policy with no from condition never tokenises a value.
        from toolhooks.stores import names_host, value_tokens

        tokens = value_tokens(values)
        if source.only == "hosts":
            tokens = {token for token in tokens if names_host(token)}
        # Every store reports the first token found in the order given: the longest first (the
        # whole URL rather than a piece of it), so the same call gives the same reason every run
        # (a set's order changes with the process' hash seed).
        ordered = sorted(tokens, key=lambda token: (-len(token), token))
        answer = store.provenance(self.session, ordered, source.labels) if tokens else None
        self._answers[key] = answer
        return answer


def unless_gate(unless: History | None, history: HistoryView | None, verdict: Tri) -> Tri:
    """Whether the history conditions of a rule's unless table hold: True when it has none;
    False without a view of the session (the rule is then as strict as it can be)."""
    if unless is None or verdict is False:
        return True
    if history is None:
        return False
    return history.check(unless).value


def _dig(params: Mapping[str, Any], path: tuple[str, ...]) -> list[Any]:
    """The values at a dotted param name: a list on the way is each of its elements, at any
    depth of lists (``to.iban`` of ``to=[{iban}, ...]``, a tool paying a list of transfers), as
    the ``params`` condition reads a dotted name."""
    nodes: list[Any] = [params]
    for part in path:
        found: list[Any] = []
        while nodes:
            node = nodes.pop()
            if isinstance(node, Mapping):
                if part in node:
                    found.append(node[part])
            elif isinstance(node, (list, tuple)):
                nodes.extend(node)
        nodes = found
    return nodes
