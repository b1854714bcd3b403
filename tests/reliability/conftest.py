"""Shared pieces of the reliability campaign (issue 6): real distributions, event capture."""

from __future__ import annotations

import asyncio
import os

import pytest
from hypothesis import Phase, settings
from toolhooks.testing import EventRecorder


@pytest.fixture
def recorder() -> EventRecorder:
    return EventRecorder()


def run_both(make_runtime, request, execute=None):
    """The same request through ``call`` and ``acall`` on two fresh runtimes: both outcomes."""
    outcomes = []
    for mode in ("call", "acall"):
        rt = make_runtime()
        try:
            if mode == "call":
                outcomes.append(rt.call(request, execute=execute))
            else:
                outcomes.append(asyncio.run(rt.acall(request, execute=execute)))
        finally:
            rt.close()
    return outcomes


@pytest.fixture
def both():
    """``both(make_runtime, request, execute)`` -> (call outcome, acall outcome)."""
    return run_both


# Mutation checks (RELIABILITY.md) only need to know that a property fails, not the smallest
# example: HYPOTHESIS_PROFILE=mutation skips shrinking.
# Built on the suite's profile (tests/conftest.py: no deadlines), which stays the default.
settings.register_profile(
    "mutation",
    parent=settings.get_profile("toolhooks"),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "toolhooks"))
