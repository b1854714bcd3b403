"""What the daemon serves: one config's runtime and bridge, rebuilt when the config changes.

Each request takes the current ``Served`` (``Resident.acquire``) and gives it back when answered
(``release``). Before that it looks at the config file and ``toolhooks.lock`` next to it: one
``stat`` each (about 2 µs); only when a stat differs (or the file is under 2 s old) is the
content hashed, and only a different
hash rebuilds the runtime (an editor's save without changes, a ``touch``, rebuild nothing). The
old runtime keeps serving the requests that started on it and is closed after the last one.

A config that no longer loads leaves the daemon ``broken``: each request is answered as the hook
would answer it in-process (``run_in_process``: refused in the agent's protocol, naming the
error), until the file changes again. Loop-detection sessions and call-limit counters live in the
runtime (unless ``[state] url``), so a rebuild starts them afresh, as a new daemon would.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from pathlib import Path

from ..config._agents import AgentsTable
from ..config._settings import load_config
from ..runtime._runtime import Runtime
from ._bridge import AgentBridge
from ._protocol import HookReply
from ._run import build_runtime, load, run_in_process

logger = logging.getLogger("toolhooks.agents.agentd")
Stat = tuple[int, int, int, int] | None
RECENT_NS = 2_000_000_000


def watched_files(config: str | None) -> tuple[str, ...]:
    """The files whose change rebuilds the runtime: the config and the plugin lock beside it."""
    if config is None:
        return ()
    return (config, os.path.join(os.path.dirname(config), "toolhooks.lock"))


def stats(paths: tuple[str, ...]) -> tuple[Stat, ...]:
    found: list[Stat] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            found.append(None)
        else:
            found.append((info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
    return tuple(found)


def digest(paths: tuple[str, ...]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as handle:
                sha.update(b"%d:" % os.fstat(handle.fileno()).st_size + handle.read())
        except OSError:
            sha.update(b"-")
        sha.update(b"\0")
    return sha.hexdigest()


def _recent(found: tuple[Stat, ...]) -> bool:
    """Whether a file was modified in the last ``RECENT_NS``: file systems keep mtimes at a
    clock tick's precision (a few ms), so two writes of the same size inside one tick leave the
    same stat; such a file is hashed on every request until it is older."""
    now = time.time_ns()
    return any(stat is not None and now - stat[0] < RECENT_NS for stat in found)


class Served:
    """One config's runtime and bridge, and how many requests use them now."""

    def __init__(self, config: str | None) -> None:
        self.config = config
        self.watched = watched_files(config)
        # Read before loading: a change made while the runtime is built is seen next request.
        self.stat = stats(self.watched)
        self.digest = digest(self.watched)
        loaded = load(Path(config)) if config is not None else load_config(None)
        self.settings: AgentsTable = loaded.agents
        self.runtime: Runtime = build_runtime(loaded)
        try:
            self.bridge = AgentBridge(self.runtime)
        except BaseException:
            self.runtime.close()
            raise
        self._flushes = [
            flush
            for info in self.runtime.plugins()
            if callable(flush := getattr(self.runtime.get_plugin(info.name), "flush", None))
        ]
        self.users = 0
        self.retired = False

    def handle(self, agent: str, raw: bytes) -> HookReply:
        """The bridge's reply, once what it logged is written: the agent goes on when it has the
        answer, and a daemon killed after that must not take the call's audit lines with it (an
        in-process hook writes them when it closes its runtime). One write per hook."""
        reply = self.bridge.handle(agent, raw)
        self._flush()
        return reply

    def refuse(self, agent: str, reason: str, size: int) -> HookReply:
        """The bridge's refusal of an event never read whole, once its log line is written."""
        reply = self.bridge.refuse(agent, reason, size)
        self._flush()
        return reply

    def _flush(self) -> None:
        for flush in self._flushes:
            try:
                flush()
            except Exception:  # a plugin's flush failing is its own error, not the answer's
                logger.exception("agentd: a plugin's flush failed")

    def close(self) -> None:
        try:
            self.bridge.close()
        finally:
            self.runtime.close()


class Mismatch(Exception):
    """A request for another config than the daemon's (two configs in one folder)."""


class Resident:
    """The daemon's current ``Served``, rebuilt when its files change (thread-safe)."""

    def __init__(self, config: str | None) -> None:
        self.config = config
        self._lock = threading.Lock()
        self.current: Served | None = Served(config)  # a config that does not load: raises
        self.broken: str | None = None
        self._stat = self.current.stat
        self._digest = self.current.digest
        self.reloads = 0

    @property
    def settings(self) -> AgentsTable:
        return self.current.settings if self.current is not None else AgentsTable()

    def answer(self, agent: str, raw: bytes, config: str | None) -> HookReply:
        """The reply to one hook event for a hook that runs under ``config``."""
        served = self.acquire(config)
        if served is None:  # the config does not load: answer exactly as the hook would alone
            return run_in_process(agent, raw, config=Path(self.config) if self.config else None)
        try:
            return served.handle(agent, raw)
        finally:
            self.release(served)

    def refuse(self, agent: str, reason: str, size: int) -> HookReply:
        """``reason``'s refusal of an event that was never read whole, logged (``agent.refused``)
        by the current runtime; by the agent's protocol alone while the config is broken."""
        served = self.acquire(self.config)
        if served is None:
            from ._protocol import protocol

            return protocol(agent).refuse(None, reason)
        try:
            return served.refuse(agent, reason, size)
        finally:
            self.release(served)

    def acquire(self, config: str | None) -> Served | None:
        with self._lock:
            if config != self.config:
                if self.config is not None or config is None:
                    raise Mismatch(f"this daemon serves {self.config or 'the defaults'}")
                # A toolhooks.toml appeared where the daemon ran on the defaults: adopt it.
                self.config = config
                self._reload()
            elif self._changed():
                self._reload()
            served = self.current
            if served is not None:
                served.users += 1
            return served

    def release(self, served: Served) -> None:
        with self._lock:
            served.users -= 1
            done = served.retired and served.users == 0
        if done:
            served.close()

    def close(self) -> None:
        with self._lock:
            served, self.current = self.current, None
            if served is not None:
                served.retired = True
                done = served.users == 0
        if served is not None and done:
            served.close()

    def _changed(self) -> bool:
        watched = watched_files(self.config)
        now = stats(watched)
        if now == self._stat and not _recent(now):
            return False
        self._stat = now
        fresh = digest(watched)
        if fresh == self._digest:
            return False  # touched, not changed
        self._digest = fresh
        return True

    def _reload(self) -> None:
        old, self.current = self.current, None
        if old is not None:
            old.retired = True
            if old.users == 0:
                old.close()
        self.reloads += 1
        try:
            self.current = Served(self.config)
        except Exception as error:
            self.broken = f"{type(error).__name__}: {error}"
            self._stat = stats(watched_files(self.config))
            self._digest = digest(watched_files(self.config))
            logger.error("agentd: the config does not load, hooks are refused: %s", self.broken)
            return
        self.broken = None
        self._stat, self._digest = self.current.stat, self.current.digest
        logger.info("agentd: the config changed; runtime rebuilt")
