"""The loop_detection plugin: the hooks that feed the windows and act on the detectors' findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolhooks import (
    AfterToolCallResult,
    BeforeToolCallResult,
    ToolCall,
    ToolResult,
    emit,
    hookimpl,
)
from toolhooks.kit import ConfigOnRead, LazyConfig

from ._defaults import DEFAULTS, LoopDetectionDefaults
from ._detectors import Detectors, Finding
from ._hashing import UNKNOWN_TOOL, Signer, outcome_hash
from ._sessions import PendingCalls, Sessions, SessionStore
from ._state import SessionKey, SessionState, tool_key

if TYPE_CHECKING:
    from ._config import LoopDetectionConfig

MAX_PENDING = 16_384
"""Calls remembered between before_tool_call and after_tool_call (oldest dropped beyond this)."""


class LoopDetectionPlugin:
    """Notices an agent repeating itself and warns it, then blocks the loop.

    Per session (``call.session_id``; every call without one shares a single "no session"
    bucket) it keeps the signatures of the last ``window`` calls and their outcome hashes. See
    PLUGINS.md for exactly what each detector counts.
    """

    name = "loop_detection"
    priority = 9_000
    # Built only for a [plugins.loop_detection] table, a mapping, or when read: with no table
    # the plugin runs on DEFAULTS, a plain record (toolhooks.kit.LazyConfig).
    Config = LazyConfig["LoopDetectionConfig"](f"{__package__}._config", "LoopDetectionConfig")
    if TYPE_CHECKING:
        config: LoopDetectionConfig
    else:
        config = ConfigOnRead()

    def __init__(self, config: LoopDetectionConfig | Mapping[str, Any] | None = None) -> None:
        if config is not None:
            if not isinstance(config, self.Config):
                config = self.Config.model_validate(config)
            self.config = config
        self._setup(DEFAULTS if config is None else config)

    def _setup(self, config: LoopDetectionConfig | LoopDetectionDefaults) -> None:
        self._window = config.window
        self._signer = Signer(config.ignore_params, config.ignore_params_by_tool)
        self._detectors = Detectors(config)
        self._sessions: Sessions = SessionStore(config.max_sessions)
        self._local: SessionStore | None = self._sessions
        """The sessions when they live in this process: the hooks then work on a state directly,
        not through a closure passed to ``update`` (which a shared store needs)."""
        self._pending = PendingCalls(MAX_PENDING)
        self._outcome_hash = outcome_hash

    def attach_runtime(self, runtime: Any) -> None:
        """With ``[state] url``, keep sessions in the shared state (idempotent)."""
        state = getattr(runtime, "state", None)
        if state is None or getattr(self._sessions, "state", None) is state:
            return
        from ._shared import SharedSessionStore, stable_outcome_hash

        # Signatures and outcomes are compared across processes now: hash() differs in each.
        self._outcome_hash = stable_outcome_hash
        config = self.config
        self._signer = Signer(config.ignore_params, config.ignore_params_by_tool, stable=True)
        ttl_s = runtime.config.state.session_ttl_s
        self._sessions = SharedSessionStore(state, self.config.max_sessions, ttl_s)
        self._local = None

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        """Block a call that closes a loop; remember a warning to deliver with its result."""
        session = call.session_id
        key = (session, call.id)
        pending = self._pending
        if key in pending:
            # The same logical call screened again: edit-and-approve re-runs the chain under the
            # call's id. It already holds its place in the window (its first proposal), so it is
            # neither counted twice nor judged against itself.
            return None
        name = call.name
        sig = self._signer.sign(name, call.params)
        unknown_tool = call.spec is None
        detectors = self._detectors
        window = self._window
        local = self._local
        if local is not None:  # the steps of ``step`` below, without a closure to make and call
            state = local.get(session)
            lock = state.lock
            lock.acquire()  # not ``with``: cheaper, twice a call (BENCHMARKS.md)
            try:
                new = state.sigs.find(sig) < 0
                finding = detectors.check(state, name, sig, unknown_tool, new)
                seq = state.append(sig, name, window)
            finally:
                lock.release()
        else:

            def step(state: SessionState) -> tuple[Finding | None, int, bool]:
                # ``new``: no 8 bytes of the window equal sig. Not ``sig in state.sigs``, which
                # first tries sig as an int (and raises, in C, each call).
                new = state.sigs.find(sig) < 0
                finding = detectors.check(state, name, sig, unknown_tool, new)
                # A blocked call enters the window too, without an outcome (it never runs): an
                # agent that keeps proposing it keeps its loop visible instead of breaking it up.
                return finding, state.append(sig, name, window), new

            finding, seq, new = self._sessions.update(session, step)
        if finding is None:
            pending[key] = (session, seq, None, False, new)
            if len(pending) > pending.limit:
                pending.drop_oldest()
            return None
        critical = finding.critical
        # Remembered for a critical finding too: in mode = "audit" the call still runs.
        pending.put(key, (session, seq, finding.message, critical, new))
        if critical:
            _emit("loop.critical", finding)
            return BeforeToolCallResult(block=True, block_reason=finding.message)
        _emit("loop.warning", finding)
        return None

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> AfterToolCallResult | None:
        """Record how the call ended; hand the model the warning found before it ran."""
        pending = self._pending.pop((call.session_id, call.id), None)
        if pending is None:  # blocked before this plugin ran, or forgotten (MAX_PENDING)
            return None
        session, seq, message, critical, new = pending
        if critical:
            if result.status == "blocked" and result.error == message:
                return None  # this plugin's block was applied: the call never ran
            message = None  # audit mode: the call ran; record it, but there is no warning
        out = self._outcome_hash(result)
        unknown = out == UNKNOWN_TOOL
        local = self._local
        if local is not None:  # the steps of ``step`` below, without a closure to make and call
            state = local.peek(session)
            if state is not None:
                lock = state.lock
                lock.acquire()
                try:
                    state.record(seq, out, new)
                    if unknown or state.unknown:
                        state.note_unknown(tool_key(call.name), unknown)
                finally:
                    lock.release()
        else:
            name = call.name

            def step(state: SessionState) -> None:
                state.record(seq, out, new)
                if unknown or state.unknown:
                    state.note_unknown(tool_key(name), unknown)

            self._sessions.update_existing(session, step)
        if message is None:
            return None
        return AfterToolCallResult(note=message)

    # -- introspection and control --------------------------------------------------------

    def session_count(self) -> int:
        """How many sessions have state right now (at most ``max_sessions``)."""
        return len(self._sessions)

    def has_session(self, session_id: SessionKey) -> bool:
        """True when ``session_id`` (None: the "no session" bucket) has state."""
        return session_id in self._sessions

    def reset(self, session_id: SessionKey = ..., /) -> None:
        """Forget one session's history (``reset(None)`` is the "no session" bucket), or all."""
        if session_id is ...:
            self._sessions.clear()
        else:
            self._sessions.discard(session_id)

    def no_progress_streak(self, session_id: SessionKey) -> int:
        """The session's current count of consecutive calls that made no progress."""
        state: SessionState | None = self._sessions.peek(session_id)
        if state is None:
            return 0
        with state.lock:
            return state.streak


def _emit(event: str, finding: Finding) -> None:
    emit(
        event,
        detector=finding.detector,
        level=finding.level,
        count=finding.count,
        threshold=finding.threshold,
        message=finding.message,
    )
