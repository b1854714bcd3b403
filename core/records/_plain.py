"""``Record`` (public as ``toolhooks.kit.Record``): a frozen, slotted, keyword-only record whose
methods come from the ``.pyc``.

A ``@dataclass(frozen=True, slots=True, kw_only=True)`` class compiles its generated methods
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) from
source text each time its module is imported: about 3 M instructions for a record of five
fields over a plain class (callgrind), paid by every command-line hook on every tool call, for
every record on its path. A ``Record`` writes its keyword-only ``__init__`` in its class body and
inherits the rest, which read the fields in the order the class annotates them.

Public records stay dataclasses (users call ``dataclasses.replace`` and ``fields`` on them);
this is for the records no user builds (docs/decisions/plain-records.md).

It lives in ``records``, the lowest layer, so that the analysis' records can derive from it.
No ``from __future__ import annotations``: the public name's annotations resolve in the kit's
namespace (tests/architecture/test_public_names.py).
"""

from dataclasses import FrozenInstanceError
from typing import Any, ClassVar

from .._public import public


class Record:
    """A frozen, slotted, keyword-only record for a plugin's own data, cheap to define.

    A subclass annotates its fields, names the same fields in ``__slots__`` (any order) and
    writes a keyword-only ``__init__`` that sets each with ``object.__setattr__`` (the record's
    own ``__setattr__`` refuses, as a frozen dataclass's does)::

        class Span(Record):
            __slots__ = ("end", "start")
            start: int
            end: int

            def __init__(self, *, start: int, end: int = 0) -> None:
                object.__setattr__(self, "start", start)
                object.__setattr__(self, "end", end)

    It is equal to a record of its class with equal fields, hashed by them (unhashable when a
    field is), shown as ``Span(start=1, end=0)``, pickled and copied; assigning or deleting a
    field raises ``dataclasses.FrozenInstanceError``. Unlike a dataclass, defining one compiles
    nothing: its methods come from the module's ``.pyc``. A field annotated without a slot, or a
    slot without an annotation, raises ``TypeError`` when the class is made.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            if klass is Record or not issubclass(klass, Record):
                continue
            # The fields in the order the class annotates them (ruff sorts ``__slots__``).
            declared = list(vars(klass).get("__annotations__", {}))
            if sorted(declared) != sorted(vars(klass).get("__slots__", ())):
                raise TypeError(f"{klass.__qualname__}: __slots__ must name the annotated fields")
            fields.extend(declared)
        cls._fields = tuple(fields)

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Record):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __getstate__(self) -> tuple[Any, ...]:
        return self._values()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)


public("toolhooks.kit", Record)
