"""``toolhooks doctor``'s priority ties: two plugins that both rewrite params at the same priority
on overlapping tools, so which one wins a field depends on registration order. A plugin rewrites
params when its ``before_tool_call`` source returns them, or the event log shows it doing so.
"""

from __future__ import annotations

import inspect
import re

from ..registry._registry import Handler
from ._check_plugins import Loaded
from ._checks import Check
from ._common import event_log_module

_WRITES_PARAMS = re.compile(r"\bparams\s*=(?!=)|[\"']params[\"']\s*:")


_LOG_SCAN_LIMIT = 200_000


def rewriters(loaded: Loaded, log_path: str | None) -> dict[str, str]:
    """Plugins known to write params, with the evidence: their source, or the event log."""
    found: dict[str, str] = {}
    for handler in loaded.registry.chain("before_tool_call"):
        try:
            source = inspect.getsource(handler.function)
        except (OSError, TypeError):
            continue
        if _WRITES_PARAMS.search(source):
            found.setdefault(handler.plugin, "its before_tool_call returns params")
    if log_path is None:
        return found
    reader = event_log_module()
    if reader is None:
        return found
    for number, event in enumerate(reader.read_events(log_path, include_rotated=False)):
        if number >= _LOG_SCAN_LIMIT:
            break
        plugin = event.get("plugin")
        if (
            event.get("event") == "hook.decision"
            and event.get("params")
            and isinstance(plugin, str)
        ):
            found.setdefault(plugin, "the event log shows it rewriting params")
    return found


def _overlap(a: Handler, b: Handler) -> bool:
    if a.tools is None or b.tools is None:
        return True
    if any("*" in p for p in (*a.tools, *b.tools)):
        return True
    return bool(set(a.tools) & set(b.tools))


def check_ties(loaded: Loaded, log_path: str | None) -> list[Check]:
    writers = rewriters(loaded, log_path)
    chain = [h for h in loaded.registry.chain("before_tool_call") if h.plugin in writers]
    checks = []
    for index, first in enumerate(chain):
        for second in chain[index + 1 :]:
            if (
                first.plugin != second.plugin
                and first.priority == second.priority
                and _overlap(first, second)
            ):
                checks.append(
                    Check(
                        "warning",
                        "priority ties",
                        f"{first.plugin} and {second.plugin} both rewrite params ({writers[first.plugin]}; "
                        f"{writers[second.plugin]}) at priority {first.priority}: which one wins a "
                        f"field depends on registration order ({second.plugin} runs later, so it wins)",
                        f"set [plugins.{first.plugin}] priority (or {second.plugin}'s) so the order is "
                        "explicit",
                    )
                )
    if not checks:
        checks.append(
            Check(
                "ok",
                "priority ties",
                f"no ties between plugins that rewrite params "
                f"({', '.join(sorted(writers)) or 'none do'})",
            )
        )
    return checks
