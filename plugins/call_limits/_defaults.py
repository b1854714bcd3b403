"""The ``[plugins.call_limits]`` defaults as a plain record: what the plugin runs on when its
table is absent, without building the pydantic ``CallLimitsConfig`` (whose fields take their
defaults from here, so the two cannot drift apart)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ._config import LimitConfig


class CallLimitsDefaults:
    """Every key of ``CallLimitsConfig`` with its default (documented there): nothing limited.

    A plain read-only class, not a dataclass: a dataclass's generated methods cost about as much
    to make as a pydantic model (callgrind)."""

    __slots__ = ()

    limits: tuple[LimitConfig, ...] = ()
    on_state_error: Literal["block", "allow"] = "block"
    count_ttl_s: int = 7 * 86_400
    max_keys: int = 100_000


DEFAULTS = CallLimitsDefaults()
