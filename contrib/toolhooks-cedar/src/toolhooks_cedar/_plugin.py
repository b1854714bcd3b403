"""The Cedar plugin: Cedar policies decide a call by who asks, what tool, which params, when, and
what the session has seen (DESIGN.md, "Integrations", toolhooks-cedar)."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from toolhooks import hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig, LazyLogger

# Everything else is imported when the plugin first has policies to load: installed, this module
# is imported by every runtime (to read ``off_until_configured``), and must cost it nothing.
if TYPE_CHECKING:
    from toolhooks import ApprovalRequest, BeforeToolCallResult, ToolCall, ToolhooksError

    from ._config import CedarSettings
    from ._decide import Verdict
    from ._policyset import PolicySetData

logger = LazyLogger("toolhooks.cedar")
MAX_SESSIONS: Final = 10_000
"""Sessions whose call count is kept (least recently used forgotten first)."""
RECENT_IDS: Final = 16
"""Call ids remembered per session, so a call decided twice (decide, then call) counts once."""
TITLE_LIMIT: Final = 80
DESCRIPTION_LIMIT: Final = 512


class CedarPlugin:
    """Cedar policies as a ``before_tool_call`` handler (priority 9_100: after the fence).

    Installed, it is loaded into every runtime and does nothing until ``[plugins.cedar]``
    names its ``policies``: an unconfigured one returns at once and builds no model.
    """

    name = "cedar"
    priority: ClassVar[int] = 9_100
    # Installed but unconfigured, it joins no runtime (no handler in any chain).
    off_until_configured: ClassVar[bool] = True
    Config = LazyConfig["CedarSettings"](f"{__package__}._config", "CedarSettings")
    if TYPE_CHECKING:
        config: CedarSettings
    else:
        config = ConfigOnRead()

    def __init__(
        self,
        config: CedarSettings | Mapping[str, Any] | None = None,
        *,
        folder: str | os.PathLike[str] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        """``folder``: where relative paths start (default: the config file's folder, else the
        working directory); ``clock``: the time ``context.now`` reads (default: now)."""
        self.active = False
        self.data: PolicySetData | None = None
        self._folder = None if folder is None else Path(folder)
        self.clock = clock
        """The time ``context.now`` reads (None: now); replaceable (tests, replays)."""
        self._runtime: Callable[[], Any] = lambda: None
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, list[Any]] = OrderedDict()
        self._next_check = 0.0
        self._zone: tzinfo = timezone.utc
        self.project = os.getcwd()
        """The folder relative paths of a shell command resolve against (the config's)."""
        self._engine: Any = None
        if config is None:
            return
        if not isinstance(config, _settings_type()):
            config = _settings_type().model_validate(config)
        self.config = config
        self.active = True
        if config.timezone:
            from zoneinfo import ZoneInfo

            self._zone = ZoneInfo(config.timezone)

    # -- loading --------------------------------------------------------------------------------

    def attach_runtime(self, runtime: Any) -> None:
        """Load (or reload, when the runtime's tools changed) and validate the policies: a
        ConfigError raised here comes out of ``Runtime(...)`` or ``rt.add_tool(...)``."""
        if not self.active:
            return
        ref = weakref.ref(runtime)
        self._runtime = ref
        config = getattr(runtime, "config", None)
        source = getattr(config, "source", None)
        if self._folder is None:
            self._folder = Path(source).resolve().parent if source is not None else Path.cwd()
        self.project = str(self._folder)
        tools = _tool_schemas(runtime)
        with self._lock:
            current = self.data
            if current is not None and (
                current.tools == frozenset(tools) or self.config.schema_source != "auto"
            ):
                return
            self.data = self._load(tools)

    def load(self, tools: Mapping[str, Mapping[str, Any] | None] | None = None) -> PolicySetData:
        """Load the policies now (for a plugin used without a runtime, and the CLI)."""
        if self._folder is None:
            self._folder = Path.cwd()
            self.project = str(self._folder)
        with self._lock:
            self.data = self._load(tools or {})
            return self.data

    def _load(self, tools: Mapping[str, Mapping[str, Any] | None]) -> PolicySetData:
        from ._examples import check_examples
        from ._policyset import Files, load

        assert self._folder is not None
        files = Files(
            folder=self._folder,
            policies=tuple(self.config.policies),
            entities=self.config.entities,
            schema=self.config.schema_source,
        )
        data = load(files, tools)
        check_examples(data, self)
        self._next_check = time.monotonic() + self.config.reload_interval_s
        return data

    def _maybe_reload(self, data: PolicySetData) -> PolicySetData:
        """Re-read the files when one changed: the new set replaces the old only if it loads,
        validates and passes its examples; a broken edit keeps the last good set and says so."""
        from toolhooks import ConfigError, ToolhooksError, emit

        self._next_check = time.monotonic() + self.config.reload_interval_s
        try:
            stamps = data.files.current_stamps()
        except ConfigError as error:
            return self._reload_failed(data, error)
        if stamps == data.files.stamps:
            return data
        with self._lock:
            if self.data is not data:  # another thread reloaded meanwhile
                return self.data or data
            try:
                fresh = self._load(_tool_schemas(self._runtime()))
            except ToolhooksError as error:
                return self._reload_failed(data, error, stamps)
            self.data = fresh
        logger.warning("toolhooks cedar: policies reloaded (%d policies)", len(fresh.policies))
        emit("cedar.reloaded", policies=len(fresh.policies))
        return fresh

    def _reload_failed(
        self, data: PolicySetData, error: ToolhooksError, stamps: Any = None
    ) -> PolicySetData:
        if stamps is not None:  # said once per broken edit, not on every check
            from dataclasses import replace

            data.files = replace(data.files, stamps=stamps)
        from toolhooks import emit

        text = " ".join(str(error).split())
        logger.warning(
            "toolhooks cedar: the changed policies were not loaded, keeping the last good set: %s",
            text,
        )
        emit("cedar.reload_failed", error=text, kept=len(data.policies))
        return data

    # -- the hook -------------------------------------------------------------------------------

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        if not self.active:
            return None
        engine = self._engine or self._load_engine()
        data = self.data
        if data is None:
            data = self.load()
        if self.config.reload and time.monotonic() >= self._next_check:
            data = self._maybe_reload(data)
        verdict = engine.evaluate(self, call, data)
        if verdict.decision is None:
            return None
        engine.emit(
            "cedar.matched",
            decision=verdict.decision,
            policy=None if verdict.policy is None else verdict.policy.name,
            file=None if verdict.policy is None else verdict.policy.file,
            line=None if verdict.policy is None else verdict.policy.line,
            matched=list(verdict.matched),
            errors=list(verdict.errors),
        )
        if verdict.decision == "block":
            return engine.BeforeToolCallResult(block=True, block_reason=f"Blocked by {verdict.why}")
        return engine.BeforeToolCallResult(require_approval=approval_request(verdict))

    def evaluate(self, call: ToolCall, data: PolicySetData | None = None) -> Verdict:
        """The verdict for one call (no event, no approval): what the hook acts on."""
        engine = self._engine or self._load_engine()
        return engine.evaluate(self, call, data or self.data or self.load())

    def request_of(
        self,
        call: ToolCall,
        data: PolicySetData | None = None,
        *,
        moment: datetime | None = None,
        labels: frozenset[str] | None = None,
        sources: Mapping[str, Any] | None = None,
        calls: int | None = None,
    ) -> dict[str, Any]:
        """The Cedar request of ``call`` (the mapping of DESIGN.md); the keyword arguments stand
        in for the clock, the label store and the session's count (examples, tests)."""
        engine = self._engine or self._load_engine()
        return engine.request_of(
            self,
            call,
            data or self.data or self.load(),
            moment=moment,
            labels=labels,
            sources=sources,
            calls=calls,
        )

    def _load_engine(self) -> Any:
        from . import _engine

        self._engine = _engine
        return _engine

    def now(self) -> datetime:
        """What ``context.now`` reads: the clock's time, in the configured zone."""
        if self.clock is not None:
            moment = self.clock()
            return moment.astimezone(self._zone) if moment.tzinfo is not None else moment
        return datetime.now(self._zone)

    def count(self, session: str, call_id: str) -> int:
        """Calls of the session seen before this one (a call id counts once)."""
        with self._lock:
            entry = self._sessions.get(session)
            if entry is None:
                entry = self._sessions[session] = [0, OrderedDict()]
                if len(self._sessions) > MAX_SESSIONS:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(session)
            count, ids = entry
            if call_id in ids:
                return int(ids[call_id])
            ids[call_id] = count
            if len(ids) > RECENT_IDS:
                ids.popitem(last=False)
            entry[0] = count + 1
            return int(count)

    def history(
        self, call: ToolCall, session: str, data: PolicySetData
    ) -> tuple[frozenset[str], dict[str, list[str]]]:
        """The session's labels, and for each param the labels of the results its value came
        from (empty when no policy reads them: nothing is asked of the store)."""
        if not data.reads_history:
            return frozenset(), {}
        runtime = self._runtime()
        store = None if runtime is None else getattr(runtime, "label_store", None)
        if store is None:
            return frozenset(), {}
        from toolhooks.stores import value_tokens

        labels = frozenset(store.labels(session))
        sources: dict[str, list[str]] = {}
        if labels:
            ordered = sorted(labels)
            for name, value in call.params.items():
                tokens = value_tokens(value)
                if tokens:
                    sources[name] = [
                        label
                        for label in ordered
                        if store.provenance(session, tokens, [label]) is not None
                    ]
        return labels, sources

    # -- for the CLI ----------------------------------------------------------------------------

    def schema(self) -> dict[str, Any] | None:
        """The schema the policies are validated against (None with ``schema = "none"`` or a
        schema file: ``schema_text()`` gives that one)."""
        data = self.data or self.load()
        return data.schema

    def schema_text(self) -> str | None:
        data = self.data or self.load()
        return data.schema_text


def approval_request(verdict: Verdict) -> ApprovalRequest:
    """The question an approver reads: the policy's reason, its name and where it is."""
    from toolhooks import ApprovalRequest

    policy = verdict.policy
    assert policy is not None
    title = policy.reason or f"Cedar policy {policy.name} asks for approval"
    description = verdict.why
    # No allow-always: a grant is kept per (plugin, tool, sender), so one "always" would answer
    # every later question of any Cedar policy about this tool.
    return ApprovalRequest(
        title=_fit(title, TITLE_LIMIT),
        description=_fit(description, DESCRIPTION_LIMIT),
        allowed_decisions=("allow-once", "deny"),
    )


def _fit(text: str, limit: int) -> str:
    text = " ".join(text.split()) or "approve?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_schemas(runtime: Any) -> dict[str, Mapping[str, Any] | None]:
    specs = getattr(runtime, "tool_specs", None)
    if not callable(specs):
        return {}
    return {spec.name: spec.parameters for spec in specs()}


def _settings_type() -> Any:
    from ._config import CedarSettings

    return CedarSettings
