"""Issue #34 item 6: the MCP proxy applies [[rules]] to every server's tools (a real upstream
MCP server in a subprocess, the SDK's own client in-process)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

anyio = pytest.importorskip("anyio")
mcp = pytest.importorskip("mcp")
toolhooks_mcp = pytest.importorskip("toolhooks_mcp")

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = ROOT / "contrib" / "toolhooks-mcp" / "tests" / "servers" / "upstream.py"


def test_the_proxy_blocks_what_a_rule_denies_and_passes_the_rest(tmp_path: Path):
    log = tmp_path / "upstream.jsonl"
    config = {
        "mcp": {
            "servers": {
                "files": {
                    "command": sys.executable,
                    "args": [str(UPSTREAM)],
                    "env": {"UPSTREAM_LOG": str(log)},
                },
            },
            "health_interval_s": 0.5,
            "restart_backoff_s": 0.1,
        },
        "plugins": {"only": ["rules"]},
        "rules": [
            {
                "id": "no-secrets",
                "paths": [".env", "*.pem"],
                "decision": "deny",
                "reason": "Secrets stay out of reach",
            },
            {
                "id": "echo-hosts",
                "tools": ["files__echo"],
                "hosts": ["*"],
                "unless": {"hosts": ["github.com"]},
                "decision": "deny",
            },
        ],
    }

    async def main():
        proxy = toolhooks_mcp.Proxy(config)
        async with proxy.running(), mcp.Client(proxy.server, mode="legacy", cache=None) as client:
            secret = await client.call_tool(
                "files__write_file", {"path": "a/../.env", "content": "x"}
            )
            fine = await client.call_tool(
                "files__write_file", {"path": "notes.txt", "content": "x"}
            )
            far = await client.call_tool("files__echo", {"text": "see https://evil.example/x"})
            near = await client.call_tool("files__echo", {"text": "see https://github.com/x"})
            return secret, fine, far, near

    secret, fine, far, near = anyio.run(main)
    meta = secret.meta[toolhooks_mcp.META_KEY]
    assert secret.is_error and meta["blocked_by"] == "rules"
    assert "no-secrets" in secret.content[0].text and ".env" in secret.content[0].text
    assert not fine.is_error and not near.is_error
    assert (
        far.is_error
        and "echo-hosts" in far.content[0].text
        and "evil.example" in far.content[0].text
    )
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["arguments"].get("path", r["arguments"].get("text")) for r in received] == [
        "notes.txt",
        "see https://github.com/x",
    ]
