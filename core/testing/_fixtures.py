"""The fixtures of the pytest plugin: fresh runtimes, one-test registration, event capture."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..events._events import Event
from ..registry._hookimpl import hookimpl
from ..runtime._runtime import Runtime


class EventRecorder:
    """An ``on_event`` plugin that keeps every event it sees, in order; safe to share between
    threads (a handler thread, a timed-out one, the caller)."""

    name = "toolhooks-testing-recorder"

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._lock = threading.Lock()

    @hookimpl
    def on_event(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def names(self, call_id: str | None = None) -> list[str]:
        """The event names in order; with ``call_id``, those of that call only."""
        return [e.event for e in self.events if call_id is None or e.call_id == call_id]

    def of(self, name: str) -> list[Event]:
        return [event for event in self.events if event.event == name]

    def of_call(self, call_id: str) -> list[str]:
        """The event names of one call, in order (``names(call_id)``)."""
        return self.names(call_id)

    def clear(self) -> None:
        with self._lock:
            self.events.clear()


def require(available: bool, reason: str) -> None:
    """Skip the calling test when a service or browser it needs is missing, saying why.

    With ``CI`` set the same gap fails the test instead: a CI run must never go green by skipping
    what it was meant to exercise (a real Redis, a headless Chromium, ...).
    """
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
    pytest.skip(reason)


@pytest.fixture
def toolhooks_make_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Runtime]]:
    """A factory for runtimes that are closed after the test; files go under ``tmp_path``.

    Defaults to ``load_entrypoints=False`` (only what the test registers); pass
    ``load_entrypoints=True`` to include the built-ins and installed plugins. Defaults to
    ``config={}`` too: a test must not pick up ``$TOOLHOOKS_CONFIG`` or a ``toolhooks.toml``
    from the machine it happens to run on; pass ``config=`` to test one.
    """
    monkeypatch.chdir(tmp_path)
    made: list[Runtime] = []

    def make(**kwargs: Any) -> Runtime:
        kwargs.setdefault("load_entrypoints", False)
        kwargs.setdefault("config", {})
        runtime = Runtime(**kwargs)
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.close()


@pytest.fixture
def toolhooks_runtime(toolhooks_make_runtime: Callable[..., Runtime]) -> Runtime:
    """A fresh runtime with no plugins (no entry points loaded), working in ``tmp_path``."""
    return toolhooks_make_runtime()


@pytest.fixture
def register_plugin(toolhooks_runtime: Runtime) -> Iterator[Callable[..., str]]:
    """``register_plugin(plugin, name=None, priority=None)`` on ``toolhooks_runtime`` for one test."""
    names: list[str] = []

    def register(plugin: Any, name: str | None = None, priority: int | None = None) -> str:
        registered = toolhooks_runtime.register(plugin, name=name, priority=priority)
        names.append(registered)
        return registered

    yield register
    for registered in reversed(names):
        if toolhooks_runtime.get_plugin(registered) is not None:
            toolhooks_runtime.unregister(registered)


@pytest.fixture
def toolhooks_events(toolhooks_runtime: Runtime) -> EventRecorder:
    """Every event ``toolhooks_runtime`` emits during the test, in order."""
    recorder = EventRecorder()
    toolhooks_runtime._register_observer(recorder, EventRecorder.name)  # whatever `only` says
    return recorder
