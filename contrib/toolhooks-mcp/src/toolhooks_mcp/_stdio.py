"""The proxy's transport to a stdio upstream: newline-delimited JSON-RPC over a child's pipes.

The SDK's ``stdio_client`` (mcp 2.3.0) joins its whole pending text to each 64 KB chunk and
splits it again, so one 50 MB line costs gigabytes of copying and tens of seconds of CPU while
the proxy waits (docs/decisions/mcp-proxy.md). This reader keeps a line's chunks in a list, looks
for a newline in each new chunk only, and joins a line once: linear in what the server writes.
It also refuses a line longer than ``max_line_bytes`` instead of holding all of it in memory.

What matters of the SDK's transport is kept: the environment (its safe default variables under
the table's own), the working directory, the child's stderr going to ours, a child in its own
process group, a line that is not JSON-RPC handed to the session as an exception, and the
spec's shutdown (close stdin, wait, SIGTERM the group, wait, SIGKILL it), shielded and bounded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from types import TracebackType

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

logger = logging.getLogger("toolhooks.mcp")

STDIN_CLOSED_GRACE_S = 2.0
"""How long a server may take to exit by itself once its stdin is closed (the SDK's figure)."""
TERMINATE_GRACE_S = 2.0
"""How long its process group has between SIGTERM and SIGKILL."""
REAP_S = 2.0
"""How long the event loop gets to see a killed process die; only an unkillable one runs it out."""
FLUSH_S = 0.5
"""How long messages already accepted for the server get to be written before its stdin closes."""
READ_CHUNK = 1 << 16


class LineTooLong(Exception):
    """The server wrote a line (one JSON-RPC message) longer than the transport accepts."""


class StdioTransport:
    """``async with StdioTransport(...) as (read, write)``: the server running, its streams.

    One use only. ``failure`` says why the connection ended when the transport ended it (a line
    too long), for the caller to report instead of a bare "connection closed".
    """

    def __init__(
        self,
        *,
        name: str,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: str | None,
        max_line_bytes: int,
        stdin_grace_s: float = STDIN_CLOSED_GRACE_S,
        terminate_grace_s: float = TERMINATE_GRACE_S,
    ) -> None:
        self.name = name
        self.command = command
        self.args = args
        self.env = env
        self.cwd = cwd
        self.max_line_bytes = max_line_bytes
        self.stdin_grace_s = stdin_grace_s
        self.terminate_grace_s = terminate_grace_s
        self.failure: str | None = None
        self._streams: contextlib.AbstractAsyncContextManager[
            tuple[
                MemoryObjectReceiveStream[SessionMessage | Exception],
                MemoryObjectSendStream[SessionMessage],
            ]
        ] = self._run()

    async def __aenter__(
        self,
    ) -> tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]:
        return await self._streams.__aenter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        return await self._streams.__aexit__(exc_type, exc, traceback)

    @contextlib.asynccontextmanager
    async def _run(
        self,
    ) -> AsyncIterator[
        tuple[
            MemoryObjectReceiveStream[SessionMessage | Exception],
            MemoryObjectSendStream[SessionMessage],
        ]
    ]:
        process = await anyio.open_process(
            [self.command, *self.args],
            env=get_default_environment() | self.env,
            cwd=self.cwd,
            stderr=None,  # the server's messages go where the proxy's own go
            start_new_session=True,  # its own process group, so shutdown reaches its children
        )
        # No await between the spawn and the task group: a cancellation there would leak it.
        to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        writer_done = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(self._read, process, to_session)
            group.start_soon(self._write, process, from_session, to_session, writer_done)
            try:
                yield from_server, to_server
            finally:
                # Shielded so that a cancelled caller cannot leave the server running; every
                # wait inside is bounded.
                with anyio.CancelScope(shield=True):
                    # The reader stops delivering and drains: a server blocked writing its
                    # stdout could not read its stdin, and the flush below needs it to.
                    from_server.close()
                    to_server.close()
                    with anyio.move_on_after(FLUSH_S):
                        await writer_done.wait()
                    await stop(process, self.stdin_grace_s, self.terminate_grace_s)
                    for stream in (from_server, to_server, to_session, from_session):
                        await stream.aclose()
                group.cancel_scope.cancel()

    async def _read(
        self,
        process: anyio.abc.Process,
        to_session: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        assert process.stdout is not None
        stdout = process.stdout
        try:
            async with to_session:
                try:
                    async for line in self._lines(stdout):
                        try:
                            await to_session.send(self._parse(line))
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return  # the session is gone: only the drain below remains
                except LineTooLong as exc:
                    self.failure = str(exc)
                    logger.warning("MCP server %r: %s", self.name, exc)
                    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await to_session.send(exc)
            # Closed now, before the drain: the session's pending requests fail at once.
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass  # the pipe went away under the read: the session sees the stream end
        finally:
            await _drain(stdout)

    async def _lines(self, stdout: anyio.abc.ByteReceiveStream) -> AsyncIterator[bytes]:
        """Each line the server writes, without its newline, in time linear in its length."""
        limit = self.max_line_bytes
        pending: list[bytes] = []
        pending_size = 0
        while True:
            try:
                chunk = await stdout.receive(READ_CHUNK)
            except anyio.EndOfStream:
                return  # a last line without a newline is not a whole message
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                size = pending_size + end - start
                if size > limit:
                    raise LineTooLong(_too_long(size, limit))
                if pending:
                    pending.append(chunk[start:end])
                    line = b"".join(pending)
                    pending.clear()
                    pending_size = 0
                else:
                    line = chunk[start:end]
                start = end + 1
                if line and not line.isspace():  # not strip(): it would copy a line ending in \r
                    yield line
            if start < len(chunk):
                pending.append(chunk[start:] if start else chunk)
                pending_size += len(chunk) - start
                if pending_size > limit:
                    raise LineTooLong(_too_long(pending_size, limit, finished=False))

    def _parse(self, line: bytes) -> SessionMessage | Exception:
        """A message, or the reason it is not one: the session decides what an error costs."""
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as exc:
            logger.warning(
                "MCP server %r wrote a line that is not JSON-RPC (%d bytes): %s",
                self.name,
                len(line),
                " ".join(str(exc).split())[:300],
            )
            return exc
        return SessionMessage(message)

    async def _write(
        self,
        process: anyio.abc.Process,
        from_session: MemoryObjectReceiveStream[SessionMessage],
        to_session: MemoryObjectSendStream[SessionMessage | Exception],
        done: anyio.Event,
    ) -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for outgoing in from_session:
                    text = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading (it may still be alive): end the session's stream so
            # that a request fails now instead of waiting for its timeout.
            await to_session.aclose()
        finally:
            done.set()


def _too_long(size: int, limit: int, *, finished: bool = True) -> str:
    what = f"{size:,} bytes" if finished else f"more than {size:,} bytes"
    return (
        f"it sent a message of {what}, over the limit of {limit:,} "
        "([mcp] max_message_mb); the connection was closed"
    )


async def _drain(stdout: anyio.abc.ByteReceiveStream) -> None:
    """Read and drop what the server still writes until its stdout closes, so that a server
    flushing a large answer at shutdown is not stuck on a full pipe and can exit."""
    with (
        anyio.CancelScope(shield=True),
        contextlib.suppress(
            anyio.EndOfStream,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            ConnectionError,
            OSError,
        ),
    ):
        while True:
            await stdout.receive(READ_CHUNK)


async def stop(
    process: anyio.abc.Process,
    stdin_grace_s: float = STDIN_CLOSED_GRACE_S,
    terminate_grace_s: float = TERMINATE_GRACE_S,
) -> None:
    """The spec's shutdown: close stdin and wait, then SIGTERM the process group and wait, then
    SIGKILL it. Each wait is bounded; a process that survives SIGKILL is left with a warning."""
    assert process.stdin is not None and process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, stdin_grace_s):
        await _end_group(process, terminate_grace_s)
        if not await _exited(process, REAP_S):
            # Only a process stuck in the kernel survives SIGKILL; waiting longer would hang
            # the proxy. Its stdout is closed so that the reader stops.
            logger.warning("MCP server process %d survived SIGKILL; leaving it", process.pid)
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await process.stdout.aclose()
            return
    # Closes the pipes (a child of the server may still hold them open) and reaps the process.
    with anyio.move_on_after(REAP_S):
        await process.aclose()


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        await process.wait()
        return True
    return False


async def _end_group(process: anyio.abc.Process, grace_s: float) -> None:
    """SIGTERM to the server's whole process group, SIGKILL to what is left after a grace."""
    if sys.platform == "win32":  # pragma: no cover - no process groups to signal
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        return
    group = process.pid  # start_new_session made the server its group's leader
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    except PermissionError:
        pass  # some member is not ours to signal: wait, then try SIGKILL all the same
    with anyio.move_on_after(grace_s):
        while _group_alive(group):
            await anyio.sleep(0.01)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a member we may not signal is still a member
    return True
