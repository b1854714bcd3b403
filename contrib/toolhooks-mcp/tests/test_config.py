"""The [mcp] table: accepted by the core loader, validated by toolhooks_mcp.McpTable."""

from __future__ import annotations

import subprocess
import sys

import pytest
from toolhooks import ConfigError, Runtime
from toolhooks_mcp import McpTable


def load(tmp_path, text):
    path = tmp_path / "toolhooks.toml"
    path.write_text(text)
    return Runtime(config=path, load_entrypoints=False).config


def test_the_mcp_table_is_validated_by_its_own_model(tmp_path):
    config = load(
        tmp_path,
        '[mcp]\nsender = "ada"\n\n[mcp.servers.files]\ncommand = "npx"\nargs = ["-y", "server-fs"]\n'
        '[mcp.servers.files.tools.write_file]\ntags = ["side_effect", "fs"]\n',
    )
    table = config.tables["mcp"]
    assert isinstance(table, McpTable)
    assert table.sender == "ada" and table.servers["files"].args == ("-y", "server-fs")
    assert table.servers["files"].tools["write_file"].tags == ("side_effect", "fs")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[mcp]\nseperator = "."\n',
            "toolhooks.toml:2: unknown key 'seperator' in [mcp] (did you mean 'separator'?)",
        ),
        (
            '[mcp.servers.files]\ncommand = "x"\ntrusted = "yes"\n',
            "toolhooks.toml:3: mcp.servers.files.trusted: Input should be a valid boolean",
        ),
        (
            '[mcp.servers.files]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n',
            "give exactly one of command (stdio) or url",
        ),
        (
            '[mcp.servers.a]\ncommand = "x"\n[mcp.servers.b]\ncommand = "y"\n[mcp]\nprefix = false\n',
            "prefix = false needs exactly one server",
        ),
        (
            '[[mcp.auth.tokens]]\nsender = "ada"\n',
            "give exactly one of env (a variable holding the token) or sha256",
        ),
    ],
)
def test_mistakes_name_the_key_the_file_and_the_line(tmp_path, text, expected):
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    assert expected in str(caught.value)


def test_the_cli_lists_mcp_and_reports_a_bad_table_in_one_line(tmp_path):
    shown = subprocess.run(
        [sys.executable, "-m", "toolhooks", "--help"], capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0 and "\n    mcp " in shown.stdout
    (tmp_path / "toolhooks.toml").write_text('[mcp.servers.files]\ncomand = "npx"\n')
    done = subprocess.run(
        [sys.executable, "-m", "toolhooks", "mcp", "servers"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"toolhooks: error: {tmp_path / 'toolhooks.toml'}:2: unknown key 'comand' in [mcp.servers.files] (did you mean 'command'?) (at mcp.servers.files.comand)"
    ]


def test_mcp_servers_lists_how_tools_are_named(tmp_path):
    (tmp_path / "toolhooks.toml").write_text(
        '[mcp.servers.files]\ncommand = "npx"\nargs = ["server-fs"]\ntrusted = true\n'
        '[mcp.servers.web]\nurl = "http://127.0.0.1:9000/mcp"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "toolhooks", "mcp", "servers"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "files  stdio  trusted  files__<tool>  npx server-fs",
        "web  http  untrusted  web__<tool>  http://127.0.0.1:9000/mcp",
    ]
