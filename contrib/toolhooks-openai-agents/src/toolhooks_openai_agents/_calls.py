"""From the SDK's terms to toolhooks' and back: the ToolCall for a function call, the tool output."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.tool import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from toolhooks import Outcome, Sender, ToolCall, ToolSpec

_STRUCTURED = (ToolOutputText, ToolOutputImage, ToolOutputFileContent)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallScope:
    """Who and where: the fields every call of one guarded tool carries."""

    sender: Sender | None = None
    agent_id: str | None = None
    session_id: str | None = None

    @classmethod
    def of(
        cls,
        sender: Sender | Mapping[str, Any] | str | None,
        agent_id: str | None,
        session_id: str | None,
    ) -> CallScope:
        return cls(sender=Sender.coerce(sender), agent_id=agent_id, session_id=session_id)

    def call(
        self, name: str, params: Mapping[str, Any], call_id: str, spec: ToolSpec | None = None
    ) -> ToolCall:
        """The call under the SDK's call id, so a decision and its execution share one id.

        ``spec``: the tool's registered spec, which the runtime would otherwise attach to a copy
        of the call, once for the decision and once for the execution (BENCHMARKS.md, choices made for speed).
        """
        return ToolCall(
            name=name,
            params=params,
            id=call_id,
            session_id=self.session_id,
            agent_id=self.agent_id,
            sender=self.sender,
            spec=spec,
        )

    def parse(
        self, name: str, arguments: str, call_id: str, spec: ToolSpec | None = None
    ) -> ToolCall | dict[str, Any]:
        """The model's JSON arguments as a call; arguments that are not a JSON object are handed
        to the pipeline as they are, which turns them into a recorded "Invalid tool call"."""
        try:
            params = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            params = None
        if not isinstance(params, dict):
            return {"name": name, "params": arguments, "id": call_id}
        return self.call(name, params, call_id, spec)


def model_output(outcome: Outcome) -> Any:
    """What the SDK hands the model: the Outcome's text.

    The tool's own value is kept only when it is one of the SDK's structured outputs (an image,
    a file) and the pipeline left it alone: nothing trimmed, redacted or noted, so the text and
    the value say the same thing.
    """
    value = outcome.value
    if (
        outcome.status == "ok"
        and not outcome.content_changed
        and not outcome.notes
        and not outcome.truncated
        and (
            isinstance(value, _STRUCTURED)
            or (
                isinstance(value, list) and value and all(isinstance(v, _STRUCTURED) for v in value)
            )
        )
    ):
        return value
    return outcome.content
