"""The two demo-only plugins of ``toolhooks demo``: ``change_window`` (a change freeze on a weekly
clock, with the demo's own clock) and ``push_review`` (a person reviews every ``git push``).
Written as a third party would write them; nothing outside the demo registers them."""

from __future__ import annotations

import re
from datetime import datetime
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..records._models import ToolCall
from ..records._results import BeforeToolCallResult
from ..registry._hookimpl import hookimpl

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MOMENT = re.compile(r"(mon|tue|wed|thu|fri|sat|sun)[a-z]*\s+(\d{1,2}):(\d{2})", re.IGNORECASE)


def week_minute(text: str) -> int:
    """``"Fri 16:00"`` -> minutes since Monday 00:00."""
    match = _MOMENT.fullmatch(text.strip())
    if match is None or int(match.group(2)) > 23 or int(match.group(3)) > 59:
        raise ValueError(f"{text!r} is not a weekday and time such as 'Fri 16:00'")
    return (
        DAYS.index(match.group(1).lower()[:3]) * 1440
        + int(match.group(2)) * 60
        + int(match.group(3))
    )


class ChangeWindow:
    """Demo-only plugin: no production deploys during the weekly change freeze.

    It runs late (priority 100, after workspace_guard's approval request), so the demo shows a
    call that asked for approval and was still blocked by a later hook.
    """

    name: ClassVar[str] = "change_window"
    priority: ClassVar[int] = 100

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")

        freeze: str = "Fri 16:00 - Mon 08:00"
        clock: str | None = Field(default=None, description="a fixed 'now' (the demo's clock)")
        deploy_pattern: str = r"\bdeploy\S*\s+(?:--?\S+\s+)*prod(?:uction)?\b"

        @field_validator("freeze")
        @classmethod
        def _check_freeze(cls, value: str) -> str:
            start, sep, end = value.partition("-")
            if not sep:
                raise ValueError("freeze must look like 'Fri 16:00 - Mon 08:00'")
            week_minute(start)
            week_minute(end)
            return value

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or self.Config()
        start, _, end = self.config.freeze.partition("-")
        self.start, self.end = week_minute(start), week_minute(end)
        self.deploy = re.compile(self.config.deploy_pattern, re.IGNORECASE)

    def now(self) -> int:
        if self.config.clock is not None:
            return week_minute(self.config.clock)
        moment = datetime.now()
        return moment.weekday() * 1440 + moment.hour * 60 + moment.minute

    def frozen(self) -> bool:
        now = self.now()
        if self.start <= self.end:
            return self.start <= now < self.end
        return now >= self.start or now < self.end

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        command = call.params.get("command")
        if not isinstance(command, str) or not self.deploy.search(command) or not self.frozen():
            return None
        clock = f"{self.config.clock} (demo clock)" if self.config.clock else "now"
        return BeforeToolCallResult(
            block=True,
            block_reason=(
                f"Change freeze {self.config.freeze}: no production deploys; it is {clock}"
            ),
        )


class PushReview:
    """Demo-only plugin: a person reviews every ``git push``, and may edit the command.

    Its request lists "edit", so the demo shows an edit-and-approve (the chain runs again on the
    edited command) and a review that waits (deferred) while the agent goes on.
    """

    name: ClassVar[str] = "push_review"
    priority: ClassVar[int] = 200

    class Config(BaseModel):
        model_config = ConfigDict(extra="forbid")

        push_pattern: str = r"^\s*git\s+push\b"

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or self.Config()
        self.push = re.compile(self.config.push_pattern)

    @hookimpl(tools=["exec"])
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        command = call.params.get("command")
        if not isinstance(command, str) or not self.push.search(command):
            return None
        return BeforeToolCallResult(
            require_approval={
                "title": "Push to the remote?",
                "description": f"The agent wants to run: {command[:400]}",
                "allowed_decisions": ["allow-once", "deny", "edit"],
            }
        )
