"""An upstream's CallToolResult into the pipeline, and the Outcome back into a CallToolResult.

Everything the client receives derives from what the after chain saw and returned. The text the
hooks see (the tool's value, rendered as its content) holds every channel that carries text:
the text blocks, each embedded text resource (under a ``[resource URI]`` line), each resource
link, and the structured content as JSON (unless a text block already is exactly that JSON).
What the client gets back:

- the call ran and no after hook changed that text: the upstream's text blocks, text resources,
  resource links and structured content as they came (the hooks saw all of them), plus a text
  block with any notes the after chain added (a loop warning);
- an after hook changed that text (a redaction, the result budget's trim): only the new text;
  the other channels are dropped, since they would hand back what the hook removed;
- blocks no hook can read (images, audio, binary resources) are never passed on unseen: they
  are dropped, and ``_meta`` names them under ``dropped``;
- blocked, denied, failed: ``isError`` with the reason text.

Every result carries ``_meta["dev.toolhooks/outcome"]`` so a client can tell a policy block from
a tool failure, find a trimmed result's artifact, and see what was dropped.
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
    """What the pipeline records as the tool's result: the text of every channel hooks can read."""
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if result.is_error:
        raise ToolError("\n".join(texts) or "the MCP server reported an error")
    parts = ["\n".join(texts)] if texts else []
    for block in result.content:
        if _is_text_resource(block):
            resource = block.resource  # type: ignore[union-attr]
            parts.append(f"[resource {resource.uri}]\n{resource.text}")
        elif isinstance(block, types.ResourceLink):
            described = f" {block.description}" if block.description else ""
            parts.append(f"[resource link {block.uri}] {block.name}{described}")
    structured = result.structured_content
    if structured is not None and not _already_the_json(texts, structured):
        text = json.dumps(structured, ensure_ascii=False)
        parts.append(f"[structuredContent]\n{text}" if parts else text)
    if not parts:  # only blocks no hook can read: say what they were
        return "\n".join(_placeholder(block) for block in result.content)
    return "\n".join(parts)


def _already_the_json(texts: list[str], structured: Any) -> bool:
    """True when the one text block is the structured content serialized (the spec's advice)."""
    if len(texts) != 1:
        return False
    try:
        return bool(json.loads(texts[0]) == structured)
    except ValueError:
        return False


def _is_text_resource(block: types.ContentBlock) -> bool:
    return isinstance(block, types.EmbeddedResource) and isinstance(
        block.resource, types.TextResourceContents
    )


def _seen(block: types.ContentBlock) -> bool:
    """A block whose whole content reached the hooks as text."""
    return isinstance(block, (types.TextContent, types.ResourceLink)) or _is_text_resource(block)


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
    if raw is None:
        return types.CallToolResult(content=[types.TextContent(text=outcome.content)], _meta=meta)
    if outcome.content_changed:
        dropped = [_placeholder(b) for b in raw.content if not isinstance(b, types.TextContent)]
        if raw.structured_content is not None:
            dropped.append("structuredContent")
        if dropped:
            meta[META_KEY]["dropped"] = dropped
        return types.CallToolResult(content=[types.TextContent(text=outcome.content)], _meta=meta)
    unseen = [_placeholder(block) for block in raw.content if not _seen(block)]
    if unseen:
        meta[META_KEY]["dropped"] = unseen
    content: list[types.ContentBlock] = [block for block in raw.content if _seen(block)]
    if outcome.notes:
        content.append(types.TextContent(text="\n".join(outcome.notes)))
    return types.CallToolResult(
        content=content, structured_content=raw.structured_content, _meta=meta
    )


def rendered(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
