"""Run the one pipeline generator from sync or async code.

The pipeline (``runtime._call`` over the stages of ``pipeline``) is written once, as a
generator. It calls plain ``def`` handlers inline and *yields* whatever has to be waited on: a coroutine, or a sync callable that must run
under a timeout. ``drive_sync`` resolves those by blocking (coroutines go to a private background
event loop, so ``call`` works whether or not the caller is inside a loop, and creates no loop when
nothing is async); ``drive_async`` awaits them. Both send the value, or throw the exception, back
into the generator, so ``call`` and ``acall`` cannot drift apart.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar

from ..events._scope import CallScope, current_scope

if TYPE_CHECKING:
    import asyncio
    import concurrent.futures

T = TypeVar("T")
# asyncio is imported where a loop is used, not here: 124 M instructions of a cold process's
# start (callgrind), and a sync call whose handlers are plain functions never needs it. From 3.11
# both timeout errors are the builtin TimeoutError.
if sys.version_info >= (3, 11):
    _TIMEOUT_ERRORS: tuple[type[BaseException], ...] = (TimeoutError,)
else:  # pragma: no cover - exercised on 3.10 only
    import asyncio
    import concurrent.futures

    _TIMEOUT_ERRORS = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)


class TimedOut(Exception):
    """A handler, approver or tool did not finish within its timeout."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"timed out after {seconds:g} s")
        self.seconds = seconds


class AwaitIt:
    """Request: await ``awaitable``, giving up after ``timeout`` seconds (None: no limit)."""

    __slots__ = ("awaitable", "timeout")

    def __init__(self, awaitable: Awaitable[Any], timeout: float | None) -> None:
        self.awaitable = awaitable
        self.timeout = timeout


class RunInThread:
    """Request: run a sync callable in a daemon thread, giving up after ``timeout`` seconds."""

    __slots__ = ("args", "function", "timeout")

    def __init__(
        self, function: Callable[..., Any], args: tuple[Any, ...], timeout: float | None
    ) -> None:
        self.function = function
        self.args = args
        self.timeout = timeout


Request = AwaitIt | RunInThread
Pipeline = Generator[Request, Any, T]


def start_daemon(
    function: Callable[..., Any], args: tuple[Any, ...]
) -> concurrent.futures.Future[Any]:
    """Run ``function`` in a new daemon thread: a hung handler must never block interpreter exit."""
    import concurrent.futures  # with logging, 23 M of a cold start that runs nothing in a thread

    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    context = contextvars.copy_context()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(function, *args))
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=target, name="toolhooks-timed", daemon=True).start()
    return future


class BackgroundLoop:
    """A private event loop on a daemon thread, started the first time something is async."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is not None:
            return loop
        with self._lock:
            if self._loop is None:
                import asyncio

                ready = threading.Event()
                new_loop = asyncio.new_event_loop()

                def run() -> None:
                    asyncio.set_event_loop(new_loop)
                    ready.set()
                    new_loop.run_forever()

                self._thread = threading.Thread(target=run, name="toolhooks-loop", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = new_loop
            return self._loop

    @property
    def started(self) -> bool:
        return self._loop is not None

    def in_loop_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def close(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
            if loop is not None:
                loop.call_soon_threadsafe(loop.stop)
                if self._thread is not None:
                    self._thread.join(timeout=5)
                if not loop.is_running():
                    loop.close()


async def _in_scope(scope: CallScope | None, awaitable: Awaitable[T]) -> T:
    # The background loop's task has its own context: carry the call scope over so that
    # toolhooks.emit() inside an async handler still knows which call it belongs to.
    current_scope.set(scope)
    return await awaitable


def _resolve_sync(request: Request, background: BackgroundLoop) -> Any:
    if isinstance(request, RunInThread):
        future = start_daemon(request.function, request.args)
    else:
        if background.in_loop_thread():
            raise RuntimeError("Runtime.call() was used inside an async handler; use acall()")
        import asyncio  # a coroutine to wait on: loaded by now (an async handler exists)

        coroutine = _in_scope(current_scope.get(), request.awaitable)
        future = asyncio.run_coroutine_threadsafe(coroutine, background.get())
    try:
        return future.result(request.timeout)
    except _TIMEOUT_ERRORS:
        future.cancel()
        raise TimedOut(request.timeout or 0.0) from None


def drive_sync(pipeline: Pipeline[T], background: BackgroundLoop) -> T:
    try:
        request = pipeline.send(None)
        while True:
            try:
                value = _resolve_sync(request, background)
            except BaseException as exc:
                request = pipeline.throw(exc)
            else:
                request = pipeline.send(value)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


async def _resolve_async(request: Request) -> Any:
    import asyncio  # already loaded: this runs on the caller's event loop

    if isinstance(request, RunInThread):
        awaitable: Awaitable[Any] = asyncio.wrap_future(
            start_daemon(request.function, request.args)
        )
    else:
        awaitable = request.awaitable
    if request.timeout is None:
        return await awaitable
    try:
        return await asyncio.wait_for(awaitable, request.timeout)
    except _TIMEOUT_ERRORS:
        raise TimedOut(request.timeout) from None


async def drive_async(pipeline: Pipeline[T]) -> T:
    try:
        request = pipeline.send(None)
        while True:
            try:
                value = await _resolve_async(request)
            except BaseException as exc:
                # Cancellation is thrown in too, so that after_tool_call still fires; the pipeline
                # re-raises it once the audit hooks have run.
                request = pipeline.throw(exc)
            else:
                request = pipeline.send(value)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
