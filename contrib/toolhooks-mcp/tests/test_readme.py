"""The README's example runs as printed and prints what its comment says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_and_shows_the_block_reason(tmp_path: Path) -> None:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "writes under /etc are not allowed"


def test_the_top_readme_mcp_section_config_loads_and_its_client_entry_is_the_wrap_one(
    tmp_path: Path,
) -> None:
    import json

    from toolhooks import Runtime
    from toolhooks_mcp import McpTable

    top = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = top.split("## Put toolhooks in front of your MCP servers", 1)[1].split("\n## ", 1)[0]
    toml = re.findall(r"```toml\n(.*?)```", section, re.S)[0]
    (tmp_path / "toolhooks.toml").write_text(toml)
    config = Runtime(config=tmp_path / "toolhooks.toml", load_entrypoints=False).config
    table = config.tables["mcp"]
    assert isinstance(table, McpTable) and table.servers["files"].command == "npx"
    entry = json.loads(re.findall(r"```json\n(.*?)```", section, re.S)[0])["mcpServers"][
        "toolhooks"
    ]
    assert entry["args"][:2] == ["mcp", "serve"]
