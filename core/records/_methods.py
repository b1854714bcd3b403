"""``dataclass_methods``: the ``__repr__``, ``__eq__`` and ``__hash__`` that ``@dataclass`` would
generate for a public record, made without compiling source.

``@dataclass`` writes each generated method as source text and compiles it whenever the class is
made: about 0.8 M instructions a method for a record of eight fields (callgrind); for these three,
27 M of a start on the starter policy (21 public records on its path). The public
records must stay dataclasses (users call ``dataclasses.replace``, ``fields`` and ``asdict`` on
them, pydantic reads their fields), so they are still made by ``@dataclass``, with ``init=False,
repr=False, eq=False``: each writes its ``__init__`` (``FACTORY`` is the default of an argument
whose field has a ``default_factory``), and this decorator gives them the other three methods as
closures over their field names, whose code comes from this module's ``.pyc``
(docs/decisions/plain-records.md)::

    @dataclass_methods(frozen=True)
    @dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
    class Span:
        start: int
        end: int = 0

        def __init__(self, *, start: int, end: int = 0) -> None:
            object.__setattr__(self, "start", start)
            object.__setattr__(self, "end", end)

What they do is what ``@dataclass(eq=True, repr=True)`` gives (tests/records/test_methods.py
compares them on every public record): ``repr`` shows the fields whose ``repr`` is true, guarded
against recursion; two records are equal when they are of the same class and their ``compare``
fields are; a frozen record hashes those fields (or the ones whose ``hash`` is set), a mutable
one is unhashable; a method the class writes itself is kept.
"""

import operator
import reprlib
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from .._public import public

C = TypeVar("C", bound=type)


class _Factory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


FACTORY: Any = _Factory()
"""The default of a hand-written ``__init__``'s argument whose field has a ``default_factory``
(the ``__init__`` then calls it): shown as ``<factory>``, as in a generated ``__init__``."""


def dataclass_methods(*, frozen: bool) -> Callable[[C], C]:
    """Give a dataclass made with ``repr=False, eq=False`` the ``__repr__``, ``__eq__`` and
    ``__hash__`` of ``@dataclass(repr=True, eq=True, frozen=frozen)``; ``frozen`` must be what
    the class was made with."""

    def add(cls: C) -> C:
        own = vars(cls)
        every = fields(cls)
        if "__repr__" not in own:
            _set(cls, "__repr__", _repr([item.name for item in every if item.repr]))
        if "__eq__" not in own:
            _set(cls, "__eq__", _eq(_getter([item.name for item in every if item.compare])))
        # As dataclasses' table for eq=True: a hash the class wrote stays (a None that Python put
        # there because the class wrote __eq__ is not one); else a frozen record hashes its
        # fields and a mutable one is unhashable.
        written = own.get("__hash__", None)
        explicit = "__hash__" in own and not (written is None and "__eq__" in own)
        if not explicit:
            hashed = [
                item.name for item in every if (item.compare if item.hash is None else item.hash)
            ]
            _set(cls, "__hash__", _hash(_getter(hashed)) if frozen else None)
        return cls

    return add


def _set(cls: type, name: str, method: Any) -> None:
    if method is not None:
        method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving a record's values of ``names`` as a tuple (compared as the generated
    methods compare theirs: tuple equality, which takes an identical value as equal)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda record: ()


def _repr(names: list[str]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], bool]:
    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


public("toolhooks.kit", dataclass_methods)
