"""Rates such as ``"5 per minute"``: read when a limit is validated or compiled (no pydantic here,
so a runtime with no ``[plugins.call_limits]`` table never imports the config models)."""

from __future__ import annotations

import re

MAX_RATE_CALLS = 100_000
"""A rate limit remembers one timestamp per admitted call in its window: bounded here."""

_UNITS = {
    "second": 1,
    "sec": 1,
    "s": 1,
    "minute": 60,
    "min": 60,
    "m": 60,
    "hour": 3_600,
    "h": 3_600,
    "day": 86_400,
    "d": 86_400,
}
_RATE = r"\s*(\d+)\s*(?:per|/)\s*(\d+)?\s*([a-z]+?)s?\s*"
"""Compiled when a rate is first read (2 M instructions: no process without a limit pays it)."""


def parse_rate(text: str) -> tuple[int, int]:
    """``"5 per minute"`` / ``"100/hour"`` / ``"10 per 30 seconds"`` -> (calls, window seconds)."""
    found = re.fullmatch(_RATE, text, re.IGNORECASE)
    unit = _UNITS.get(found.group(3).lower()) if found else None
    if found is None or unit is None:
        raise ValueError(
            f"rate {text!r} is not '<calls> per [<n>] <second|minute|hour|day>' "
            "(for example '5 per minute' or '100 per 10 minutes')"
        )
    calls = int(found.group(1))
    window = unit * int(found.group(2) or 1)
    if not 1 <= calls <= MAX_RATE_CALLS:
        raise ValueError(f"rate {text!r}: calls must be between 1 and {MAX_RATE_CALLS}")
    if not 1 <= window <= 31 * 86_400:
        raise ValueError(f"rate {text!r}: the window must be between 1 second and 31 days")
    return calls, window
