"""Loop detection's in-process signatures agree with the shared (sha256 over canonical JSON) ones.

In-process, plain scalar params are signed by hashing typed tuples (BENCHMARKS.md item 9); a
window shared through ``[state] url`` signs the canonical JSON. Two calls must be "the same call"
under both or under neither: values that compare equal in Python but are different JSON (1, 1.0
and true; 0.0 and -0.0) and ints that ``hash()`` folds together (-1 and -2, 2**61 and 1) are the
cases to get right.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from toolhooks.plugins.loop_detection._hashing import Signer

TRICKY = [
    0, 1, -1, -2, 2, True, False, 1.0, 0.0, -0.0, 1.5, 1e-7,
    2**61 - 1, 2**61, 2**63, 2**64 + 1, -(2**61),
    "1", "", "a", None,
]  # fmt: skip
PARAMS = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(TRICKY), max_size=3)
IN_PROCESS = Signer([], {})
SHARED = Signer([], {}, stable=True)


@settings(max_examples=400, deadline=None)
@given(PARAMS, PARAMS)
def test_two_calls_are_the_same_call_in_process_exactly_when_they_are_in_shared_state(a, b):
    in_process = IN_PROCESS.sign("read", a) == IN_PROCESS.sign("read", b)
    shared = SHARED.sign("read", a) == SHARED.sign("read", b)
    assert in_process == shared, (a, b)


def test_the_values_hash_folds_together_stay_apart():
    for left, right in [(-1, -2), (2**61, 1), (1, True), (1, 1.0), (0.0, -0.0), (0, False)]:
        assert IN_PROCESS.sign("read", {"n": left}) != IN_PROCESS.sign("read", {"n": right})
