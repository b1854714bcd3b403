"""The built-in plugins behind the proxy: the result budget trims with a readable artifact, the
loop detector warns and then blocks a repeated call before it reaches the upstream."""

from __future__ import annotations

import anyio
from toolhooks.plugins.result_budget import read_artifact
from toolhooks_mcp import META_KEY, Proxy


def test_a_long_result_is_trimmed_and_its_artifact_is_readable(config, connected, tmp_path):
    artifacts = tmp_path / "artifacts"
    plugins = {"result_budget": {"max_chars": 1000, "artifact_dir": str(artifacts)}}

    async def main():
        async with connected(Proxy(config(only=["result_budget"], plugins=plugins))) as client:
            return await client.call_tool("files__big", {"size": 50_000})

    result = anyio.run(main)
    meta = result.meta[META_KEY]
    assert meta["status"] == "ok" and meta["truncated"] is True
    assert meta["artifact"].startswith("sha256:")
    assert len(result.content) == 1 and len(result.content[0].text) < 2_000
    assert read_artifact(meta["artifact"], 0, 100_000, root=artifacts) == "x" * 50_000


def test_a_repeated_call_is_blocked_by_the_loop_detector(config, log, received, connected, era):
    plugins = {"loop_detection": {"warning_threshold": 2, "critical_threshold": 3}}

    async def main():
        async with connected(
            Proxy(config(only=["loop_detection"], plugins=plugins)), era
        ) as client:
            return [await client.call_tool("files__echo", {"text": "again"}) for _ in range(3)]

    first, second, third = anyio.run(main)
    assert not first.is_error and not second.is_error
    assert third.is_error and third.meta[META_KEY]["blocked_by"] == "loop_detection"
    assert len(received(log)) == 2
