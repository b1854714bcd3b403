"""The plugin's per-call path, imported once the plugin has policies (``_plugin`` stays light:
installed, it is imported by every runtime): a call's verdict from its request and cedarpy's
answer, with no import statement left on the way."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import cedarpy
from toolhooks import BeforeToolCallResult, ToolCall, ToolhooksError, emit

from ._decide import Verdict, decide
from ._exec import EMPTY, EXEC_TOOLS, exec_facts
from ._policyset import CONTEXT_PARTS
from ._request import Who, build_request
from ._values import Unrepresentable

if TYPE_CHECKING:
    from ._plugin import CedarPlugin
    from ._policyset import PolicySetData, Slice

__all__ = ["BeforeToolCallResult", "emit", "evaluate", "request_of"]

_is_authorized = cedarpy.is_authorized
ALL_PARTS = frozenset(CONTEXT_PARTS)


def evaluate(plugin: CedarPlugin, call: ToolCall, data: PolicySetData) -> Verdict:
    """The verdict for one call (no event, no approval): what the hook acts on."""
    part = data.slice_for(call.name)
    who = Who.of(call.sender)
    try:
        request = request_of(plugin, call, data, part=part, who=who)
    except Unrepresentable as error:
        return Verdict(
            decision="block",
            why=f"Cedar policies, which cannot read this call (fail closed): {error}",
        )
    except ToolhooksError as error:
        return Verdict(
            decision="block",
            why=f"Cedar policies, which cannot read the session's labels (fail closed): {error}",
        )
    entities = data.entities_for(who)
    result = _is_authorized(request, part.handle, entities)
    return decide(data, result, plugin.config.default, request, entities, part.by_id)


def request_of(
    plugin: CedarPlugin,
    call: ToolCall,
    data: PolicySetData,
    *,
    moment: datetime | None = None,
    labels: frozenset[str] | None = None,
    sources: Mapping[str, Any] | None = None,
    calls: int | None = None,
    part: Slice | None = None,
    who: Who | None = None,
) -> dict[str, Any]:
    """The Cedar request of ``call`` (see ``CedarPlugin.request_of``); with ``part`` (the
    slice of the set that decides it), only the context parts its policies name."""
    session = call.session_id or ""
    parts = ALL_PARTS if part is None else part.parts
    if labels is None or sources is None:
        if part is None or part.reads_history:
            found_labels, found_sources = plugin.history(call, session, data)
        else:
            found_labels, found_sources = frozenset(), {}
        labels = found_labels if labels is None else labels
        sources = found_sources if sources is None else sources
    spec = call.spec
    facts = (
        exec_facts(call.params, project=plugin.project, home=os.path.expanduser("~"))
        if call.name in EXEC_TOOLS and "exec" in parts
        else EMPTY
    )
    return build_request(
        tool=call.name,
        params=call.params,
        parameters=None if spec is None else spec.parameters,
        who=Who.of(call.sender) if who is None else who,
        agent_id=call.agent_id,
        session_id=call.session_id,
        labels=labels,
        calls=plugin.count(session, call.id) if calls is None else calls,
        sources=sources,
        moment=moment or (plugin.now() if "now" in parts else None),
        exec_facts=facts,
        parts=parts,
    )
