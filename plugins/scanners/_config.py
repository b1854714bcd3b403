"""``[plugins.scanners]``: one table per detector, validated with pydantic (unknown keys fail)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Where = Literal["results", "params", "descriptions"]
Action = Literal["label", "redact", "ask", "block"]
Label = Annotated[str, Field(strict=True, min_length=1, max_length=128)]
Text = Annotated[str, Field(strict=True, min_length=1, max_length=4096)]


def _results() -> list[Where]:
    return ["results"]


class DetectorConfig(BaseModel):
    """``[plugins.scanners.<detector>]``: where the detector reads, and what a finding does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    on: Annotated[list[Where], Field(min_length=1)] = Field(default_factory=lambda: _results())
    """Where it reads: ``"results"`` (each decoded string of a result and the text the model
    reads), ``"params"`` (a call's string params, before it runs), ``"descriptions"`` (tool
    descriptions and their parameter schemas, when tools are listed); one or a list."""
    action: Action = "label"
    """What a finding does: ``"label"`` (the call gets the label), ``"redact"`` (the finding is
    replaced by ``[redacted: <kind>]``), ``"ask"`` / ``"block"`` (as a rule's ``ask`` /
    ``deny``). A finding on a result labels the call whatever the action."""
    label: Label | None = None
    """The label a finding gives the call (default: the detector's name)."""
    tools: Annotated[list[Text], Field(min_length=1)] = Field(default_factory=lambda: ["*"])
    """Tool names, ``*`` patterns and ``group:<name>`` (built-in or ``[tools.groups]``), as in
    a rule; default every tool."""

    @field_validator("on", "tools", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class ScannersConfig(BaseModel):
    """``[plugins.scanners]``: a detector runs once its table exists."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hidden_text: DetectorConfig | None = None
    """Characters a person cannot see (tags, zero-width, bidi controls, stray selectors,
    fillers, private use)."""
    secrets: DetectorConfig | None = None
    """Credentials by their published formats, and random values assigned to secret names."""
    pii: DetectorConfig | None = None
    """Card numbers, IBANs, e-mail addresses, international phone numbers."""
    instructions: DetectorConfig | None = None
    """Text that addresses the model or agent and tells it what to do."""
