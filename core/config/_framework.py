"""The framework keys every ``[plugins.<name>]`` takes, as a pydantic model.

Its own module, imported only when a plugin's table has one of these keys: most configs have none,
and a model class costs a cold process several M instructions to create (callgrind).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class FrameworkSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Strict types: `enabled = "no"` or `priority = true` are mistakes, not values to coerce.
    priority: int | None = Field(default=None, strict=True)
    """Overrides ``@hookimpl(priority=)`` and the plugin's ``priority``; higher runs first."""
    mode: Literal["enforce", "audit"] | None = None
    """``audit``: run the plugin, record its decisions (``applied: false``), never apply them."""
    on_error: Literal["block", "ignore"] | None = None
    """A failing handler: ``block`` fails closed, ``ignore`` skips it (default: block; after hooks
    ignore)."""
    timeout_s: float | None = Field(default=None, gt=0, strict=True, allow_inf_nan=False)
    """Seconds a handler may take (default: a ``def`` runs inline, untimed; an ``async def`` 15)."""
    enabled: bool = Field(default=True, strict=True)
    """``false`` keeps the plugin from loading, also one passed to ``Runtime(plugins=)``."""
    tools: list[Annotated[str, Field(min_length=1)]] | None = None
    """Only these tools (``*`` is the only wildcard); unset: every tool."""
