"""Resources and prompts: passed through to the upstream that has them, unchanged.

Only tools go through the pipeline; a resource or a prompt is read from the upstream that lists
it (a resource URI no upstream lists goes to those with templates, in turn).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

if TYPE_CHECKING:
    from ._proxy import Proxy


async def list_resources(proxy: Proxy) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[r for up in proxy.upstreams.values() for r in up.resources]
    )


async def list_templates(proxy: Proxy) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[t for up in proxy.upstreams.values() for t in up.templates]
    )


async def read_resource(
    proxy: Proxy, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    upstreams = proxy.upstreams.values()
    owners = [up for up in upstreams if any(str(r.uri) == uri for r in up.resources)]
    candidates = owners or [up for up in upstreams if up.templates]
    problem = f"Unknown resource: {uri}"
    for upstream in candidates:
        client = upstream.client
        if client is None:
            problem = upstream.down_reason()
            continue
        try:
            return await client.read_resource(uri)
        except MCPError as exc:
            problem = str(exc)
    raise MCPError(code=INVALID_PARAMS, message=problem)


async def list_prompts(proxy: Proxy) -> types.ListPromptsResult:
    prompts = []
    for name, (server, prompt) in proxy.prompt_routes.items():
        listed = proxy.upstreams[server].prompts.get(prompt)
        if listed is not None:
            prompts.append(listed.model_copy(update={"name": name}))
    return types.ListPromptsResult(prompts=prompts)


async def get_prompt(proxy: Proxy, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    found = proxy.prompt_routes.get(params.name)
    if found is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {params.name}")
    upstream = proxy.upstreams[found[0]]
    client = upstream.client
    if client is None:
        raise MCPError(code=INVALID_PARAMS, message=upstream.down_reason())
    return await client.get_prompt(found[1], params.arguments)
