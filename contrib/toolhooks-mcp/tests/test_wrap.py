"""toolhooks mcp wrap: one step to route a Claude-style mcpServers file through the proxy, one to
undo; the wrapped entry is started exactly as the MCP client would start it."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
from mcp import Client, StdioServerParameters
from toolhooks import Runtime
from toolhooks_mcp import META_KEY, McpTable


def toolhooks(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "toolhooks", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_wrap_serve_and_undo(tmp_path, log, upstream, received):
    table = upstream(log)
    original = {
        "mcpServers": {
            "files": {"command": table["command"], "args": table["args"], "env": table["env"]}
        },
        "globalShortcut": "Ctrl+Space",
    }
    client_file = tmp_path / "claude_desktop_config.json"
    client_file.write_text(json.dumps(original, indent=2))
    before = client_file.read_bytes()

    shown = toolhooks("mcp", "wrap", str(client_file), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "[mcp.servers.files]" in shown.stdout and client_file.read_bytes() == before

    done = toolhooks("mcp", "wrap", str(client_file), "--write", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = tmp_path / "toolhooks.toml"
    assert (config.stat().st_mode & 0o777) == 0o600
    mcp = Runtime(config=config, load_entrypoints=False).config.tables["mcp"]
    assert isinstance(mcp, McpTable) and mcp.servers["files"].env == table["env"]
    wrapped = json.loads(client_file.read_text())
    assert (
        list(wrapped["mcpServers"]) == ["toolhooks"] and wrapped["globalShortcut"] == "Ctrl+Space"
    )
    entry = wrapped["mcpServers"]["toolhooks"]

    async def main():
        params = StdioServerParameters(
            command=entry["command"], args=entry["args"], cwd=str(tmp_path)
        )
        async with Client(params, cache=None) as client:
            assert "files__echo" in {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("files__echo", {"text": "through the proxy"})
            assert result.content[0].text == "through the proxy"
            assert result.meta[META_KEY]["status"] == "ok"

    anyio.run(main)
    assert [entry["arguments"] for entry in received(log)] == [{"text": "through the proxy"}]

    again = toolhooks("mcp", "wrap", str(client_file), "--write", cwd=tmp_path)
    assert again.returncode == 1 and "already wrapped" in again.stderr
    undone = toolhooks("mcp", "wrap", "--undo", str(client_file), cwd=tmp_path)
    assert undone.returncode == 0, undone.stderr
    assert client_file.read_bytes() == before


def test_wrap_reports_a_bad_file_in_one_line(tmp_path):
    bad = tmp_path / "claude.json"
    bad.write_text('{"servers": {}}')
    done = toolhooks("mcp", "wrap", str(bad), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f'toolhooks: error: {bad}: expected a JSON object with an "mcpServers" object'
    ]
