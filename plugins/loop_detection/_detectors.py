"""The five detectors and the finding they give for one proposed call.

Every count includes the proposed call itself. Order (PLUGINS.md, loop_detection): global circuit breaker,
known-poll no progress, ping-pong, generic repeat, unknown-tool repeat. The first critical
finding in that order blocks; otherwise the first warning is the one reported (once per bucket).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._hashing import name_matcher
from ._state import NO_OUTCOME, RECORD, SessionState, WarnKey, tool_key

if TYPE_CHECKING:
    from ._config import LoopDetectionConfig
    from ._defaults import LoopDetectionDefaults

GLOBAL, POLL, PING_PONG, GENERIC, UNKNOWN = range(5)
DETECTOR_NAMES = (
    "global_circuit_breaker",
    "known_poll_no_progress",
    "ping_pong",
    "generic_repeat",
    "unknown_tool_repeat",
)


class Finding:
    """What a detector found: ``level`` is "warning" or "critical"."""

    __slots__ = ("count", "detector", "key", "level", "message", "threshold")

    def __init__(
        self, level: str, detector: int, count: int, threshold: int, message: str, key: WarnKey
    ) -> None:
        self.level = level
        self.detector = DETECTOR_NAMES[detector]
        self.count = count
        self.threshold = threshold
        self.message = message
        self.key = key

    @property
    def critical(self) -> bool:
        return self.level == "critical"

    def __repr__(self) -> str:
        return f"Finding({self.level}, {self.detector}, count={self.count})"


class Detectors:
    """The configured detectors; :meth:`check` runs under the session's lock."""

    __slots__ = (
        "breaker", "critical", "is_poll", "on_breaker", "on_generic", "on_ping_pong", "on_poll",
        "on_unknown", "quiet_first", "unknown_threshold", "warning", "window",
    )  # fmt: skip

    def __init__(self, config: LoopDetectionConfig | LoopDetectionDefaults) -> None:
        toggles = config.detectors
        self.warning = config.warning_threshold
        self.critical = config.critical_threshold
        self.breaker = config.global_circuit_breaker
        self.unknown_threshold = config.unknown_tool_threshold
        self.window = config.window
        self.on_breaker = toggles.global_circuit_breaker
        self.on_poll = toggles.known_poll_no_progress
        self.on_ping_pong = toggles.ping_pong
        self.on_generic = toggles.generic_repeat
        self.on_unknown = toggles.unknown_tool_repeat
        self.is_poll: Callable[[str], bool] = name_matcher(config.poll_tools)
        self.quiet_first = self.warning > 1
        """True when a call's first instance in the window cannot be warned about."""

    def check(
        self, st: SessionState, name: str, sig: bytes, unknown_tool: bool, new: bool
    ) -> Finding | None:
        """The finding for calling ``name`` (signature ``sig``) now; None when all is well.

        :param unknown_tool: True when the runtime does not know the tool (``call.spec is None``).
        :param new: True when no 8 bytes of the window's signatures equal ``sig``.
        """
        if new and self.quiet_first and not st.warned and not (unknown_tool and st.unknown):
            # The common case, a call not in the window: every count below is 1 (the call
            # itself), under any threshold; there is no warning to forget and no unknown-tool
            # run to count (about a seventh of the plugin's work a call, BENCHMARKS.md).
            return None
        if self.on_breaker and st.streak >= self.breaker and sig in st.sigs:
            message = _breaker(name, st.streak)
            return Finding("critical", GLOBAL, st.streak, self.breaker, message, (GLOBAL, b""))
        found = self._detect(st, name, sig, unknown_tool)
        if found is None or found.level == "critical":
            return found
        return found if st.first_warning(found.key, found.count // self.warning) else None

    def _detect(
        self, st: SessionState, name: str, sig: bytes, unknown_tool: bool
    ) -> Finding | None:
        """The first critical finding in the detectors' order, else their first warning."""
        found: Finding | None = None
        poll = self.on_poll and self.is_poll(name)
        if poll:
            found = self._poll(st, name, sig)
            if found is not None and found.level == "critical":
                return found
        if self.on_ping_pong:
            finding = self._ping_pong(st, name, sig)
            if finding is not None and (found is None or finding.level == "critical"):
                found = finding
                if found.level == "critical":
                    return found
        if self.on_generic and not poll:
            finding = self._generic(st, name, sig)
            if finding is not None and (found is None or finding.level == "critical"):
                found = finding
                if found.level == "critical":
                    return found
        if self.on_unknown and unknown_tool and st.unknown:
            count = st.unknown.get(tool_key(name), 0) + 1
            if count >= self.unknown_threshold:
                message, key = _unknown_critical(name, count - 1), (UNKNOWN, b"")
                return Finding("critical", UNKNOWN, count, self.unknown_threshold, message, key)
        return found

    def _poll(self, st: SessionState, name: str, sig: bytes) -> Finding | None:
        """Known-poll no progress: the same poll, its result unchanged."""
        count = _poll_run(st, sig) + 1
        if count >= self.critical:
            message = _poll_critical(name, count)
            return Finding("critical", POLL, count, self.critical, message, (POLL, sig))
        if count >= self.warning:
            message = _poll_warning(name, count)
            return Finding("warning", POLL, count, self.warning, message, (POLL, sig))
        if st.warned:
            st.forget_warning((POLL, sig))
        return None

    def _ping_pong(self, st: SessionState, name: str, sig: bytes) -> Finding | None:
        """Ping-pong: two calls alternating, ``... sig other sig other``."""
        run = stalled = 0
        size = len(st.sigs) // RECORD
        if size >= 2:  # cheap test first: the call before the most recent one had ``sig``
            newest = (st.total - 1) % size
            before = ((newest - 1) % size) * RECORD
            if st.sigs.startswith(sig, before) and not st.sigs.startswith(sig, newest * RECORD):
                run, stalled = _ping_pong(st, sig)
        key = (PING_PONG, b"")
        if run and stalled + 1 >= self.critical:
            message = _ping_pong_critical(name, st.last_name, stalled + 1)
            return Finding("critical", PING_PONG, stalled + 1, self.critical, message, key)
        if run and run + 1 >= self.warning:
            message = _ping_pong_warning(name, st.last_name, run + 1)
            return Finding("warning", PING_PONG, run + 1, self.warning, message, key)
        if run + 1 < self.warning and st.warned:
            st.forget_kind(PING_PONG)
        return None

    def _generic(self, st: SessionState, name: str, sig: bytes) -> Finding | None:
        """Generic repeat: identical calls among the window's."""
        count = st.count(sig) + 1
        if count >= self.critical:
            # Only a no-progress run blocks: identical calls whose results keep changing
            # (a job's progress, a growing log) are warned about, never blocked.
            stalled = _poll_run(st, sig) + 1
            if stalled >= self.critical:
                message = _generic_critical(name, stalled)
                return Finding("critical", GENERIC, stalled, self.critical, message, (GENERIC, sig))
        if count >= self.warning:
            message = _generic_warning(name, count)
            return Finding("warning", GENERIC, count, self.warning, message, (GENERIC, sig))
        if count == 1 and st.warned:
            st.forget_warning((GENERIC, sig))
        return None


def _poll_run(st: SessionState, sig: bytes) -> int:
    """Finished calls with ``sig`` whose outcome equals the latest one, newest backwards
    (the no-progress run of one signature, used by the poll and generic-repeat detectors).

    Other calls in between are skipped; calls still running (or blocked) are skipped; the run
    ends at the first finished call with ``sig`` whose outcome differs: there progress was made.
    """
    latest: bytes | None = None
    run = 0
    for position in st.newest_first(sig):
        out = st.out_at(position)
        if out == NO_OUTCOME:
            continue
        if latest is None:
            latest = out
        elif out != latest:
            break
        run += 1
    return run


def _ping_pong(st: SessionState, sig: bytes) -> tuple[int, int]:
    """(alternation, stalled part) lengths of the window's tail ``... sig other sig other``.

    ``other`` is the most recent call's signature. The stalled part is the newest stretch of
    the run in which each of the two calls ended like its latest finished instance, with at
    least two finished instances of each (evidence of no progress); else it is 0.
    """
    newest = st.position_of(0)
    other = st.sigs[newest * RECORD : (newest + 1) * RECORD]
    pair = (bytes(other), sig)
    latest: list[bytes | None] = [None, None]
    seen = [0, 0]
    run = 0
    stalled = -1
    for back in range(st.size):
        position = st.position_of(back)
        side = back & 1
        if not st.sig_is(position, pair[side]):
            break
        run += 1
        if stalled >= 0:
            continue
        out = st.out_at(position)
        if out == NO_OUTCOME:
            continue
        if latest[side] is None:
            latest[side] = out
        elif out != latest[side]:
            stalled = run - 1
            continue
        seen[side] += 1
    if run < 2:
        return 0, 0
    if stalled < 0:
        stalled = run
    if seen[0] < 2 or seen[1] < 2:
        stalled = 0
    return run, stalled


def _breaker(name: str, streak: int) -> str:
    return (
        f"CRITICAL: the last {streak} tool calls in this session repeated earlier calls with "
        f"identical results (no progress). The loop circuit breaker blocked this call to "
        f'"{name}". Stop repeating calls: change your approach, or report that you are stuck.'
    )


def _poll_warning(name: str, count: int) -> str:
    return (
        f'WARNING: "{name}" has now been polled {count} times with the same arguments and the '
        "result has not changed. Wait longer between polls, or stop polling and do something else."
    )


def _poll_critical(name: str, count: int) -> str:
    return (
        f'CRITICAL: "{name}" was polled {count} times with the same arguments and an unchanged '
        "result; this call was blocked to stop a polling loop. Stop polling and try another "
        "approach."
    )


def _ping_pong_warning(name: str, other: str, count: int) -> str:
    return (
        f'WARNING: you are alternating between the same two tool calls ("{name}" and "{other}"), '
        f"{count} calls in a row. If this is not making progress, stop and try a different "
        "approach."
    )


def _ping_pong_critical(name: str, other: str, count: int) -> str:
    return (
        f'CRITICAL: you alternated between the same two tool calls ("{name}" and "{other}") '
        f"{count} times in a row with unchanged results; this call was blocked to stop a loop. "
        "Try a different approach."
    )


def _generic_warning(name: str, count: int) -> str:
    return (
        f'WARNING: "{name}" has been called {count} times with identical arguments among your '
        "recent tool calls. If it is not making progress, stop repeating it and try a different "
        "approach."
    )


def _generic_critical(name: str, count: int) -> str:
    return (
        f'CRITICAL: "{name}" was called {count} times with identical arguments and identical '
        "results among your recent tool calls (no progress); this call was blocked to stop a "
        "loop. Change the arguments or try a different approach."
    )


def _unknown_critical(name: str, failures: int) -> str:
    return (
        f'CRITICAL: "{name}" is not a tool this agent has, and the last {failures} calls to it '
        "failed for that reason; this call was blocked. Use one of the available tools."
    )
