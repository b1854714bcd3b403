"""The loader's Candidate, a plain record: equal, hashed and shown by what its entry point says
(not by the distribution object or folder it was found with), frozen, and rebuilt from its
cache row."""

from __future__ import annotations

import dataclasses

import pytest
from toolhooks.loading._candidate import Candidate


def candidate(**changes: object) -> Candidate:
    fields: dict[str, object] = {
        "name": "guard",
        "value": "pkg.mod:Guard",
        "distribution": "pkg",
        "version": "1.0",
        "builtin": False,
        "requires": ("toolhooks>=0.1",),
        "folder": "/site/pkg-1.0.dist-info",
    }
    return Candidate(**{**fields, **changes})  # type: ignore[arg-type]


def test_equality_and_hash_leave_out_found_and_folder():
    a, b = candidate(found=object()), candidate(folder=None)
    assert a == b and hash(a) == hash(b)
    assert a != candidate(version="2.0") and a != candidate(builtin=True)
    assert a.__eq__("guard") is NotImplemented


def test_repr_leaves_out_found():
    shown = repr(candidate(found=object()))
    assert shown == (
        "Candidate(name='guard', value='pkg.mod:Guard', distribution='pkg', version='1.0', "
        "builtin=False, requires=('toolhooks>=0.1',), folder='/site/pkg-1.0.dist-info')"
    )


def test_frozen_and_rebuilt_from_its_row():
    c = candidate()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.name = "other"  # type: ignore[misc]
    again = Candidate.from_row(c.row())
    assert again == c and again.folder == c.folder and again.found is None
    flipped = Candidate.from_row({**c.row(), "builtin": True})  # how the cache's rows are read
    assert flipped.builtin is True and flipped.folder == c.folder and c.builtin is False
