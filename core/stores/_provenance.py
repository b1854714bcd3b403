"""``Provenance``: why a value counts as coming from a labelled result. A public record made by
the first ``provenance()`` that finds one (its class is not made at a start that finds none:
``@dataclass(frozen=True)`` compiles its ``__setattr__`` and ``__delattr__``, about 1.7 M
instructions)."""

from __future__ import annotations

from dataclasses import dataclass

from ..records._methods import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Provenance:
    """Why a value counts as coming from a labelled result."""

    token: str
    """The token of the value (lower-cased) that a labelled result held."""
    labels: frozenset[str]
    """The asked-for labels of the results it came from (the overflowed ones when ``overflow``)."""
    overflow: bool = False
    """True when the token was not found but the session's results with these labels went past
    the store's bound, so the token may have come from one of them."""

    def __init__(
        self,
        *,
        token: str,
        labels: frozenset[str],
        overflow: bool = False,
    ) -> None:
        object.__setattr__(self, "token", token)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "overflow", overflow)

    def describe(self) -> str:
        labels = ", ".join(sorted(self.labels))
        if self.overflow:
            return (
                f"{self.token!r} is not in the user's words and the session's results labelled "
                f"{labels} went past the store's bound (it may come from one of them)"
            )
        return f"{self.token!r} came from a result labelled {labels}, not from the user"
