"""The ``[plugins.result_budget]`` defaults as plain records: what the plugin runs on when its
table is absent, without building the pydantic ``ResultBudgetConfig`` (whose fields take their
defaults from here, so the two cannot drift apart)."""

from __future__ import annotations

DEFAULT_ARTIFACT_DIR = ".toolhooks/artifacts"

DEFAULT_TAIL_PATTERNS: tuple[str, ...] = (
    # Looks like an error.
    r"\b(?:error|errors|exception|traceback|fatal|panic|failed|failure|failures|aborted"
    r"|segmentation fault|permission denied|not found|exit (?:code|status)|non-zero)\b",
    # Looks like a summary.
    r"\b(?:summary|total|totals|passed|succeeded|successful|completed|finished|done"
    r"|result|results)\b",
)
"""Searched (case-insensitive) in the last ``tail_scan_chars`` of an over-budget result."""

DEFAULT_TIERS = ((0, 16_000), (100_000, 32_000), (200_000, 64_000))
"""``(min_tokens, max_chars)`` of the default tiers."""


class TierDefaults:
    """A default ``Tier``."""

    __slots__ = ("max_chars", "min_tokens")
    min_tokens: int
    max_chars: int

    def __init__(self, min_tokens: int, max_chars: int) -> None:
        self.min_tokens = min_tokens
        self.max_chars = max_chars


class ResultBudgetDefaults:
    """Every key of ``ResultBudgetConfig`` with its default (documented there).

    Plain read-only classes, not dataclasses: the generated methods of a dataclass cost about as
    much to make as the pydantic model (15 M instructions for this one, callgrind)."""

    __slots__ = ()

    max_chars: int | None = None
    tiers: tuple[TierDefaults, ...] = tuple(TierDefaults(*tier) for tier in DEFAULT_TIERS)
    context_share: float = 0.3
    chars_per_token: float = 4.0
    floor: int = 2_000
    tail_share: float = 0.3
    tail_scan_chars: int = 2_000
    tail_patterns: tuple[str, ...] = DEFAULT_TAIL_PATTERNS
    snap_chars: int = 1_000
    json_summary: bool = True
    json_array_keep: int = 5
    json_string_keep: int = 200
    json_fill: bool = True
    json_max_depth: int = 20
    json_parse_max_chars: int = 500_000
    store_artifacts: bool = True
    artifact_dir: str = DEFAULT_ARTIFACT_DIR
    artifact_max_bytes: int = 1_000_000_000
    artifact_max_age_s: int = 7 * 86_400


DEFAULTS = ResultBudgetDefaults()
