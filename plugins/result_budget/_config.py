"""The ``[plugins.result_budget]`` configuration: budget tiers, trimming and artifact settings."""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._defaults import DEFAULT_ARTIFACT_DIR as DEFAULT_ARTIFACT_DIR
from ._defaults import DEFAULT_TAIL_PATTERNS as DEFAULT_TAIL_PATTERNS
from ._defaults import DEFAULT_TIERS, DEFAULTS


class Tier(BaseModel):
    """One step of the hard cap: from ``min_tokens`` of context window up, ``max_chars``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_tokens: int = Field(ge=0)
    """The context window size (tokens) from which this tier applies."""
    max_chars: int = Field(ge=1)
    """The cap, in characters, for such windows."""


def _default_tiers() -> list[Tier]:
    return [Tier(min_tokens=tokens, max_chars=chars) for tokens, chars in DEFAULT_TIERS]


_FIXED_CAP_REPLACES = ("tiers", "floor", "context_share", "chars_per_token")


class ResultBudgetConfig(BaseModel):
    """Settings of the result_budget plugin. Every number must be non-negative."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_chars: int | None = Field(default=DEFAULTS.max_chars, ge=1, strict=True)
    """A fixed cap: every result is cut to at most this many characters, whatever the context
    window. It stands for ``tiers = [{min_tokens = 0, max_chars = N}]`` plus ``floor = N``, so it
    is given alone, without ``tiers``, ``floor``, ``context_share`` or ``chars_per_token``."""
    tiers: list[Tier] = Field(default_factory=_default_tiers, min_length=1)
    """Hard cap by context window size; the first tier (``min_tokens = 0``) also applies when the
    call does not say how large its context window is."""
    context_share: float = Field(default=DEFAULTS.context_share, gt=0, le=1)
    """At most this share of the context window goes to one result."""
    chars_per_token: float = Field(default=DEFAULTS.chars_per_token, gt=0)
    """How many characters one context token is taken to hold."""
    floor: int = Field(default=DEFAULTS.floor, ge=0)
    """The budget is never below this many characters, whatever the window and the tiers say."""

    tail_share: float = Field(default=DEFAULTS.tail_share, ge=0, lt=1)
    """Share of the kept characters given to the tail when the tail looks like an error or a
    summary; 0 keeps the head only."""
    tail_scan_chars: int = Field(default=DEFAULTS.tail_scan_chars, ge=0)
    """How much of the end of the result is searched for ``tail_patterns``; 0 never keeps a tail."""
    tail_patterns: list[str] = Field(default_factory=lambda: list(DEFAULT_TAIL_PATTERNS))
    """Regular expressions (case-insensitive); a match in the scanned end keeps the tail."""
    snap_chars: int = Field(default=DEFAULTS.snap_chars, ge=0)
    """A cut moves back (head) or forward (tail) to a newline found within this many characters
    (at most a quarter of the kept part); 0 cuts exactly at the budget."""

    json_summary: bool = DEFAULTS.json_summary
    """Summarize dict/list results structurally (keys kept, long arrays shortened) instead of
    cutting their text."""
    json_array_keep: int = Field(default=DEFAULTS.json_array_keep, ge=0)
    """Items kept from an array before the rest is replaced by a count (at least; see
    ``json_fill``)."""
    json_string_keep: int = Field(default=DEFAULTS.json_string_keep, ge=0)
    """Characters kept from a string (and a key) before a count of the rest (at least; see
    ``json_fill``)."""
    json_fill: bool = DEFAULTS.json_fill
    """When the summary leaves room in the budget, show more array items and longer strings
    until the room is used; false keeps exactly ``json_array_keep`` / ``json_string_keep``."""
    json_max_depth: int = Field(default=DEFAULTS.json_max_depth, ge=1)
    """Containers deeper than this are shown as a count only."""
    json_parse_max_chars: int = Field(default=DEFAULTS.json_parse_max_chars, ge=0)
    """Text results that start with ``{`` or ``[`` and are at most this long are parsed as JSON
    to be summarized; 0 never parses text."""

    store_artifacts: bool = DEFAULTS.store_artifacts
    """Write the full text of a trimmed result to the artifact store and name it in the notice."""
    artifact_dir: str = Field(default=DEFAULTS.artifact_dir, min_length=1)
    """Directory of the content-addressed artifact store (relative to the working directory)."""
    artifact_max_bytes: int = Field(default=DEFAULTS.artifact_max_bytes, ge=0)
    """The store keeps at most this many bytes of artifacts, removing the oldest; 0: no limit."""
    artifact_max_age_s: int = Field(default=DEFAULTS.artifact_max_age_s, ge=0)
    """Artifacts older than this many seconds are removed; 0: no age limit."""

    @model_validator(mode="before")
    @classmethod
    def _fixed_cap(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or data.get("max_chars") is None:
            return data
        clashing = [key for key in _FIXED_CAP_REPLACES if key in data]
        if clashing:
            raise ValueError(
                f"max_chars is a fixed cap and replaces {', '.join(_FIXED_CAP_REPLACES)}; "
                f"remove {', '.join(clashing)} or max_chars"
            )
        cap = data["max_chars"]
        if type(cap) is not int or cap < 1:
            return data  # the field's own check reports it
        return {**data, "tiers": [{"min_tokens": 0, "max_chars": cap}], "floor": cap}

    @field_validator("tiers", mode="after")
    @classmethod
    def _check_tiers(cls, tiers: list[Tier]) -> list[Tier]:
        if tiers[0].min_tokens != 0:
            raise ValueError("the first tier must have min_tokens = 0")
        for before, after in itertools.pairwise(tiers):
            if after.min_tokens <= before.min_tokens:
                raise ValueError("tiers must be ordered by strictly increasing min_tokens")
        return tiers

    @field_validator("tail_patterns", mode="after")
    @classmethod
    def _check_patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(
                    f"tail pattern {pattern!r} is not a regular expression: {exc}"
                ) from None
        return patterns
