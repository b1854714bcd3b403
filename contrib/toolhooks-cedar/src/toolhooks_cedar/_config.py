"""``[plugins.cedar]``: the model that validates the table, imported only when a table with keys
is given or someone reads ``CedarPlugin.Config`` (see ``_plugin``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Glob = Annotated[str, Field(strict=True, min_length=1)]


class CedarSettings(BaseModel):
    """The Cedar plugin's settings (docs/reference/config.md, "[plugins.cedar]")."""

    model_config = ConfigDict(extra="forbid")

    policies: Annotated[list[Glob], Field(min_length=1)]
    """Globs of ``.cedar`` files, relative to the config file's folder; each must match a file."""
    entities: str | None = None
    """A Cedar entities JSON file (people, roles, groups), relative to the config's folder."""
    schema_source: str = Field(default="auto", alias="schema", min_length=1)
    """``"auto"`` (from the runtime's tools and the actions the policies name), ``"none"`` (no
    validation), or the path of a Cedar schema (``.cedarschema`` text or ``.json``)."""
    default: Literal["none", "deny"] = "none"
    """``"none"``: a call no policy decides is no opinion; ``"deny"``: a call no permit allows is
    blocked (AgentCore-style default deny)."""
    timezone: str | None = None
    """The IANA zone ``context.now`` is read in (default UTC)."""
    reload: bool = True
    """Re-read the files when they change (checked at most every ``reload_interval_s``)."""
    reload_interval_s: Annotated[float, Field(gt=0, le=3600)] = 2.0
    """How often, at most, a call checks whether a policy, entities or schema file changed."""

    @field_validator("policies", mode="before")
    @classmethod
    def _one_glob_is_a_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown time zone {value!r} (an IANA name: 'Europe/Berlin')"
            ) from None
        return value
