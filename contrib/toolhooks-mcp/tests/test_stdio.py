"""The proxy's own stdio transport, against real child processes: how lines are cut from what a
server writes, what a bad line does, and that shutdown leaves no process behind."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.message import SessionMessage
from toolhooks_mcp import Proxy
from toolhooks_mcp._stdio import LineTooLong, StdioTransport

UPSTREAM = Path(__file__).resolve().parent / "servers" / "upstream.py"
PRELUDE = """\
import json, os, signal, sys, time

def note(**params):
    return (json.dumps({"jsonrpc": "2.0", "method": "notifications/test", "params": params})
            + "\\n").encode()

out = sys.stdout.buffer
"""


def server(code: str, **options: object) -> StdioTransport:
    """A transport running ``code`` (after PRELUDE) as its server."""
    # Short graces: the escalation is what is tested, not the product's 2 s figures.
    settings: dict[str, object] = {
        "env": {},
        "cwd": None,
        "max_line_bytes": 10_000_000,
        "stdin_grace_s": 0.3,
        "terminate_grace_s": 0.3,
    }
    settings.update(options)
    return StdioTransport(
        name="test",
        command=sys.executable,
        args=["-c", PRELUDE + textwrap.dedent(code)],
        **settings,  # type: ignore[arg-type]
    )


async def params_of(read) -> dict:
    item = await read.receive()
    assert isinstance(item, SessionMessage), item
    assert isinstance(item.message, types.JSONRPCNotification)
    return dict(item.message.params or {})


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_line_written_in_many_small_pieces_is_one_message():
    """A 1 MB line in 4 KB writes with pauses between them arrives as many reads; the message
    is whole, and the next line after it is separate."""
    code = """
        line = note(text="x" * 1_000_000)
        for start in range(0, len(line), 4096):
            out.write(line[start:start + 4096]); out.flush()
            if start % (64 * 4096) == 0:
                time.sleep(0.01)
        out.write(note(text="after")); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            assert await params_of(read) == {"text": "x" * 1_000_000}
            assert await params_of(read) == {"text": "after"}

    anyio.run(main)


def test_many_lines_in_one_write_are_each_a_message_in_order():
    code = """
        out.write(b"".join(note(n=n) for n in range(500)) + b"\\n  \\n"); out.flush()
        out.write(note(n="last")); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            got = [(await params_of(read))["n"] for _ in range(501)]
            assert got == [*range(500), "last"]  # the blank lines in between are skipped

    anyio.run(main)


def test_a_malformed_line_reaches_the_session_as_an_error_and_reading_goes_on(caplog):
    code = """
        out.write(b"this is not json\\n")
        out.write(b'{"jsonrpc": "2.0", "id": 1}\\n')  # JSON, not JSON-RPC
        out.write(b'{"jsonrpc": "2.0", "method": "x", "params": {"t": "\\xff\\xfe"}}\\n')
        out.write(note(text="fine")); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            for _ in range(3):
                item = await read.receive()
                assert isinstance(item, ValueError), item
            assert await params_of(read) == {"text": "fine"}

    anyio.run(main)
    warned = [r.getMessage() for r in caplog.records if "not JSON-RPC" in r.getMessage()]
    assert len(warned) == 3 and all("'test'" in text for text in warned)


def test_messages_are_written_as_lines_and_answered():
    """The SDK's Client over this transport, against the test upstream the proxy tests use."""

    async def main():
        transport = StdioTransport(
            name="files",
            command=sys.executable,
            args=[str(UPSTREAM)],
            env={"UPSTREAM_LOG": os.devnull},
            cwd=None,
            max_line_bytes=10_000_000,
        )
        async with Client(transport, cache=None) as client:
            result = await client.call_tool("echo", {"text": "héllo\nworld"})
            assert result.content[0].text == "héllo\nworld"
            big = await client.call_tool("big", {"size": 3_000_000})
            assert big.content[0].text == "x" * 3_000_000

    anyio.run(main)


def test_the_environment_is_the_safe_defaults_under_the_tables_own_and_cwd_is_set(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("TOOLHOOKS_TEST_SECRET", "not for the server")
    code = """
        out.write(note(cwd=os.getcwd(), env=dict(os.environ))); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(
            code, env={"ONLY_THIS": "1", "HOME": "/elsewhere"}, cwd=str(tmp_path)
        ) as (
            read,
            _write,
        ):
            return await params_of(read)

    seen = anyio.run(main)
    assert seen["cwd"] == str(tmp_path)
    env = seen["env"]
    assert env["ONLY_THIS"] == "1" and env["HOME"] == "/elsewhere"  # the table wins
    assert env["PATH"] == os.environ["PATH"]  # a safe default is inherited
    assert "TOOLHOOKS_TEST_SECRET" not in env


def test_the_servers_stderr_goes_to_the_proxys(capfd):
    code = """
        sys.stderr.write("upstream says hello on stderr\\n"); sys.stderr.flush()
        out.write(note(ready=True)); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            await params_of(read)

    anyio.run(main)
    assert "upstream says hello on stderr" in capfd.readouterr().err


def test_a_server_that_exits_ends_the_stream_after_its_last_whole_line():
    code = """
        out.write(note(n=1) + b'{"jsonrpc": "2.0", "method": "cut'); out.flush()
        sys.exit(3)
    """

    async def main():
        async with server(code) as (read, _write):
            assert await params_of(read) == {"n": 1}
            with pytest.raises(anyio.EndOfStream):
                await read.receive()  # the unfinished line is not a message

    anyio.run(main)


def test_a_request_to_a_server_that_exits_fails_instead_of_waiting():
    """The Client's pending request ends with "connection closed" as soon as the server is gone."""
    from mcp.shared.exceptions import MCPError

    async def main():
        transport = StdioTransport(
            name="files",
            command=sys.executable,
            args=[str(UPSTREAM)],
            env={"UPSTREAM_LOG": os.devnull},
            cwd=None,
            max_line_bytes=10_000_000,
        )
        async with Client(transport, cache=None) as client:
            with anyio.fail_after(30), pytest.raises(MCPError, match=r"(?i)connection closed"):
                await client.call_tool("crash", {})

    anyio.run(main)


def test_a_server_that_ignores_stdin_closing_and_sigterm_is_killed_with_its_children():
    """Neither the server nor the child it started outlives the transport."""
    code = """
        import subprocess
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
        out.write(note(pid=os.getpid(), child=child.pid)); out.flush()
        sys.stdin.read()  # returns when the transport closes stdin; keep running anyway
        while True:
            time.sleep(1)
    """

    async def main():
        async with server(code) as (read, _write):
            return await params_of(read)

    pids = anyio.run(main)
    assert gone(pids["pid"])  # the transport reaped it
    # The child is not ours to reap: once killed, init reaps it in a moment.
    for _ in range(200):
        if gone(pids["child"]) or _zombie(pids["child"]):
            break
        anyio.run(anyio.sleep, 0.05)
    assert gone(pids["child"]) or _zombie(pids["child"])


def test_a_server_that_ignores_stdin_closing_but_not_sigterm_is_terminated():
    code = """
        out.write(note(pid=os.getpid())); out.flush()
        sys.stdin.read()
        time.sleep(600)
    """

    async def main():
        async with server(code) as (read, _write):
            return await params_of(read)

    assert gone(anyio.run(main)["pid"])


def test_a_cancelled_caller_still_stops_the_server():
    """Shutdown is shielded: cancelling the task inside the transport waits out the server's
    grace and its SIGTERM instead of leaving it running."""
    code = """
        out.write(note(pid=os.getpid())); out.flush()
        sys.stdin.read()
        time.sleep(600)
    """

    async def main():
        pids = []
        with anyio.CancelScope() as scope:
            async with server(code) as (read, _write):
                pids.append((await params_of(read))["pid"])
                scope.cancel()
                await anyio.sleep_forever()
        assert scope.cancelled_caught
        return pids[0]

    assert gone(anyio.run(main))


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return False


def test_a_line_over_the_limit_ends_the_connection_without_being_held():
    code = """
        out.write(note(n=1)); out.flush()
        out.write(b"y" * 300_000); out.flush()  # no newline yet: refused before it ends
        sys.stdin.read()
    """

    async def main():
        transport = server(code, max_line_bytes=100_000)
        async with transport as (read, _write):
            assert await params_of(read) == {"n": 1}
            item = await read.receive()
            assert isinstance(item, LineTooLong)
            with pytest.raises(anyio.EndOfStream):
                await read.receive()
        return transport.failure

    failure = anyio.run(main)
    assert failure is not None and "over the limit of 100,000" in failure
    assert "[mcp] max_message_mb" in failure


def test_a_whole_line_over_the_limit_says_its_size():
    """A line that arrives in one read, newline included, is measured whole."""
    code = """
        out.write(note(text="z" * 5000)); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code, max_line_bytes=1000) as (read, _write):
            item = await read.receive()
            assert isinstance(item, LineTooLong)
            assert re.search(r"a message of 5,0\d\d bytes, over the limit of 1,000 ", str(item))

    anyio.run(main)


def test_a_result_over_max_message_mb_fails_the_call_clearly_and_the_server_restarts(
    config, connected
):
    async def main():
        async with connected(Proxy(config(max_message_mb=0.1))) as client:
            result = await client.call_tool("files__big", {"size": 500_000})
            assert result.is_error
            text = result.content[0].text
            assert text.startswith("MCP server 'files': it sent a message of ")
            assert "over the limit of 100,000 ([mcp] max_message_mb)" in text
            with anyio.fail_after(60):  # restarted, and a small result passes again
                while True:
                    again = await client.call_tool("files__big", {"size": 1000})
                    if not again.is_error:
                        break
                    await anyio.sleep(0.1)
            assert again.content[0].text == "x" * 1000

    anyio.run(main)


def test_max_message_mb_is_checked_in_the_config():
    from toolhooks_mcp._config import McpTable

    assert McpTable(max_message_mb=0.5).max_message_mb == 0.5
    for bad in (0, -1, float("inf")):
        with pytest.raises(ValueError, match="max_message_mb"):
            McpTable(max_message_mb=bad)


def test_a_notification_the_session_does_not_take_does_not_stall_shutdown():
    """The reader is blocked handing over a message nobody receives; leaving still returns and
    stops the server (it drains what the server still writes)."""
    code = """
        out.write(note(pid=os.getpid())); out.flush()
        for n in range(2000):
            out.write(note(n=n, pad="p" * 1000)); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            pid = (await params_of(read))["pid"]
        return pid

    assert gone(anyio.run(main))


def test_json_lines_are_parsed_as_the_sdk_does():
    """A request from the server (sampling, elicitation) is a message like any other."""
    request = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    code = f"""
        out.write(json.dumps({request!r}).encode() + b"\\n"); out.flush()
        sys.stdin.read()
    """

    async def main():
        async with server(code) as (read, _write):
            item = await read.receive()
            assert isinstance(item, SessionMessage)
            assert isinstance(item.message, types.JSONRPCRequest)
            assert item.message.id == 7 and item.message.method == "ping"

    anyio.run(main)
