"""``toolhooks.kit.Record``: the internal records written as plain classes (so that a cold
process does not compile dataclass methods) keep what a frozen, slotted, keyword-only
dataclass gives."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from toolhooks.analysis._options import Options
from toolhooks.kit import Record
from toolhooks.plugins.rules._records import Hit, Ruling


class Pair(Record):
    """A record for the tests."""

    __slots__ = ("left", "right")

    left: int
    right: list[int] | None

    def __init__(self, *, left: int, right: list[int] | None = None) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


def test_frozen_slotted_and_keyword_only() -> None:
    pair = Pair(left=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.left = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del pair.left
    with pytest.raises(TypeError):
        Pair(1)  # type: ignore[misc]
    assert not hasattr(pair, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        pair.other = 3  # type: ignore[attr-defined]


def test_equal_hashed_and_shown_by_fields_in_declared_order() -> None:
    assert Pair._fields == ("left", "right")
    assert Pair(left=1) == Pair(left=1, right=None)
    assert Pair(left=1) != Pair(left=2)
    assert Pair(left=1).__eq__(object()) is NotImplemented
    assert hash(Pair(left=1)) == hash(Pair(left=1))
    with pytest.raises(TypeError):
        hash(Pair(left=1, right=[2]))  # a list field: unhashable, as a frozen dataclass is
    assert repr(Pair(left=1, right=[2])) == "Pair(left=1, right=[2])"
    assert repr(Hit(decision="deny", rule="r", kind="rule", subject="s", matched="m")) == (
        "Hit(decision='deny', rule='r', kind='rule', subject='s', matched='m', reason=None)"
    )


def test_pickled_and_copied() -> None:
    ruling = Ruling(
        decision="deny", hit=Hit(decision="deny", rule="r", kind="k", subject="s", matched="m")
    )
    for again in (pickle.loads(pickle.dumps(ruling)), copy.copy(ruling), copy.deepcopy(ruling)):
        assert again == ruling and again is not ruling
    options = Options(short_values="ab", long_values=frozenset({"x"}))
    assert pickle.loads(pickle.dumps(options)) == options


def test_a_field_without_its_slot_is_an_error_at_import() -> None:
    with pytest.raises(TypeError, match="__slots__ must name the annotated fields"):

        class Wrong(Record):
            __slots__ = ("a",)
            a: int
            b: int

    with pytest.raises(TypeError, match="__slots__ must name the annotated fields"):

        class Unnamed(Record):
            __slots__ = ("a", "b")
            a: int


def test_a_log_line_shows_a_record_as_its_fields() -> None:
    from toolhooks.kit import sanitize

    hit = Hit(decision="deny", rule="r", kind="rule", subject="s", matched="m")
    assert sanitize({"hit": hit})["hit"] == {
        "decision": "'deny'",
        "rule": "'r'",
        "kind": "'rule'",
        "subject": "'s'",
        "matched": "'m'",
        "reason": "None",
    }
