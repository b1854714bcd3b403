"""An upstream's CallToolResult into the pipeline, and the Outcome back into a CallToolResult.

What the hooks see is the upstream result's text (its text blocks joined; the structured content
as JSON when there is no text). What the client gets back:

- the call ran and no after hook changed that text: the upstream's own blocks and structured
  content, plus a text block with any notes the after chain added (a loop warning);
- an after hook changed the text (a redaction, a trim): only the new text. Structured content and
  non-text blocks are dropped, since they would hand back what the redaction removed;
- blocked, denied, failed: ``isError`` with the reason text.

Every result carries ``_meta["dev.toolhooks/outcome"]`` so a client can tell a policy block from
a tool failure, and find a trimmed result's artifact.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from toolhooks import Outcome, ToolError

META_KEY = "dev.toolhooks/outcome"


class Holder:
    """The upstream's raw result of one call, kept aside while the after chain runs."""

    __slots__ = ("result",)

    def __init__(self) -> None:
        self.result: types.CallToolResult | None = None


def upstream_value(result: types.CallToolResult) -> Any:
    """What the pipeline records as the tool's result (and after hooks read)."""
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if result.is_error:
        raise ToolError("\n".join(texts) or "the MCP server reported an error")
    if texts:
        return "\n".join(texts)
    if result.structured_content is not None:
        return result.structured_content
    return "\n".join(_placeholder(block) for block in result.content)


def _placeholder(block: types.ContentBlock) -> str:
    mime = getattr(block, "mime_type", None)
    return f"[{block.type}{' ' + mime if mime else ''}]"


def outcome_meta(outcome: Outcome) -> dict[str, Any]:
    return {
        "status": outcome.status,
        "blocked_by": outcome.blocked_by,
        "reason": outcome.reason,
        "call_id": outcome.call_id,
        "truncated": outcome.truncated,
        "artifact": outcome.artifact,
    }


def call_result(outcome: Outcome, raw: types.CallToolResult | None) -> types.CallToolResult:
    meta = {META_KEY: outcome_meta(outcome)}
    if outcome.status == "pending" and outcome.pending is not None:
        # Deferred by the configured route (the queue with wait_s = 0): a human decides with
        # `toolhooks approvals`; the same call made again picks that decision up.
        meta[META_KEY]["approval"] = outcome.pending.short_id or outcome.pending.id
        text = (
            f"Waiting for approval {outcome.pending.short_id or outcome.pending.id}: "
            f"{outcome.pending.request.title}. Make the same call again once it is decided."
        )
        return types.CallToolResult(
            content=[types.TextContent(text=text)], is_error=True, _meta=meta
        )
    if outcome.status != "ok":
        return types.CallToolResult(
            content=[types.TextContent(text=outcome.content)], is_error=True, _meta=meta
        )
    if raw is None or outcome.content_changed:
        return types.CallToolResult(content=[types.TextContent(text=outcome.content)], _meta=meta)
    content = list(raw.content)
    if outcome.notes:
        content.append(types.TextContent(text="\n".join(outcome.notes)))
    return types.CallToolResult(
        content=content, structured_content=raw.structured_content, _meta=meta
    )


def rendered(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
