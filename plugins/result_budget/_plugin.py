"""The result_budget plugin: keeps every tool result within a share of the context window."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolhooks import AfterToolCallResult, ToolCall, ToolResult, emit, hookimpl
from toolhooks.kit import ConfigOnRead, LazyConfig, LazyLogger, render_content

from ._artifacts import ArtifactStore
from ._defaults import DEFAULTS, ResultBudgetDefaults
from ._trim import Budget, Trimmer, notice, snap_head

if TYPE_CHECKING:
    from ._config import ResultBudgetConfig

logger = LazyLogger("toolhooks.plugins.result_budget")
_NOT_JSON: Any = object()


class ResultBudgetPlugin:
    """Trims over-budget results to head (plus an error- or summary-looking tail) and a notice,
    summarizes JSON-like results structurally, and stores the full text as an artifact.

    Runs last in ``after_tool_call`` (priority -10_000), so it sees the content every other
    plugin produced.
    """

    name = "result_budget"
    priority = -10_000
    # Built only for a [plugins.result_budget] table or when read (a trimmed result's JSON
    # summary reads it): with no table the plugin is set up from DEFAULTS, a plain record
    # (toolhooks.kit.LazyConfig).
    Config = LazyConfig["ResultBudgetConfig"](f"{__package__}._config", "ResultBudgetConfig")
    if TYPE_CHECKING:
        config: ResultBudgetConfig
    else:
        config = ConfigOnRead()

    def __init__(self, config: ResultBudgetConfig | None = None) -> None:
        if config is not None:
            self.config = config
        self._setup(DEFAULTS if config is None else config)

    def _setup(self, config: ResultBudgetConfig | ResultBudgetDefaults) -> None:
        self.budget = Budget(config)
        self.store = (
            ArtifactStore(
                config.artifact_dir,
                max_bytes=config.artifact_max_bytes,
                max_age_s=config.artifact_max_age_s,
            )
            if config.store_artifacts
            else None
        )
        self._trimmer = Trimmer(config)
        self._minimum = self.budget.minimum
        self._default = self.budget.chars(None)

    def __repr__(self) -> str:
        return f"ResultBudgetPlugin(store={self.store!r})"

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> AfterToolCallResult | None:
        content = result.content
        if not isinstance(content, str) or len(content) <= self._minimum:
            return None
        tokens = call.context_window_tokens
        budget = self._default if tokens is None else self.budget.chars(tokens)
        if len(content) <= budget:
            return None
        value = _source_value(content, result.value) if self.config.json_summary else None
        return self.trim(content, value, budget)

    def budget_for(self, context_window_tokens: int | None) -> int:
        """The budget in characters for a context window of this many tokens (None: unknown)."""
        return self.budget.chars(context_window_tokens)

    def trim(self, content: str, value: Any, budget: int) -> AfterToolCallResult:
        """Trim ``content`` (longer than ``budget``), store it, and report what happened.

        ``value`` is what ``content`` was rendered from, summarized instead of parsing the text;
        pass None when ``content`` is not (or may not be) its rendering.
        """
        ref, error = self._store(content)
        summary = self._summary_of(content, value)
        new = None if summary is _NOT_JSON else self._summarized(summary, len(content), budget, ref)
        mode = "json"
        if new is None:
            new, _kept = self._trimmer.trim(content, budget, ref)
            mode = "text"
        data: dict[str, Any] = {
            "original_chars": len(content),
            "kept_chars": len(new),
            "artifact": ref,
            "budget": budget,
            "mode": mode,
        }
        if error is not None:
            data["artifact_error"] = error
        emit("result.trimmed", **data)
        return AfterToolCallResult(content=new, truncated=True, artifact=ref)

    def _store(self, content: str) -> tuple[str | None, str | None]:
        if self.store is None:
            return None, None
        try:
            return self.store.put(content), None
        except OSError as exc:  # the trim still happens; the notice just names no artifact
            logger.warning("result_budget: could not store the full result: %s", exc)
            return None, f"{type(exc).__name__}: {exc}"

    def _summary_of(self, content: str, value: Any) -> Any:
        """The JSON-like value to summarize, or ``_NOT_JSON`` to cut the text instead."""
        config = self.config
        if not config.json_summary or content[:64].lstrip()[:1] not in ("{", "["):
            return _NOT_JSON
        from ._summary import is_json_like  # only for an over-budget, JSON-looking result

        if is_json_like(value):
            return value
        if len(content) <= config.json_parse_max_chars:
            try:
                parsed = json.loads(content)
            except (ValueError, RecursionError):
                return _NOT_JSON
            if isinstance(parsed, (dict, list)):
                return parsed
        return _NOT_JSON

    def _summarized(self, value: Any, total: int, budget: int, ref: str | None) -> str | None:
        """The summary plus its notice, or None when no summary can be made of ``value``."""
        from ._summary import structural_summary

        config = self.config
        room = max(0, budget - len(notice(total, ref, 0, summary=True)) - 1)
        try:
            text = structural_summary(
                value,
                room,
                config.json_array_keep,
                config.json_string_keep,
                config.json_max_depth,
                config.json_fill,
            )
        except Exception as exc:  # an odd container (len() fails, changes while walked, ...)
            logger.debug("result_budget: no structural summary: %r", exc)
            return None
        if len(text) > room:
            text = text[: snap_head(text, room, min(config.snap_chars, room // 4))]
        line = notice(total - len(text), ref, 0, summary=True)
        return f"{text}\n{line}" if text else line


def _source_value(content: str, value: Any) -> Any:
    """``value`` when ``content`` is still exactly what it renders to, else None.

    An earlier after hook may have rewritten ``content`` (a redaction, say) and left ``value``
    alone: a summary built from ``value`` would then bring back what the hook removed, so the
    summary is made from ``content`` instead. Only reached for an over-budget, JSON-looking
    result, where the extra rendering costs about what storing the artifact does.
    """
    if value is None or content[:64].lstrip()[:1] not in ("{", "["):
        return None
    return value if render_content(value) == content else None
