"""The checks ``toolhooks doctor`` runs; each returns :class:`Check` rows and never raises."""

from __future__ import annotations

import contextlib
import difflib
import inspect
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..config._settings import LoadedConfig, load_config
from ..loading._entry_points import Candidate, find_entry_points, load, why_skipped
from ..loading._lock import lock_report, refusal
from ..loading._lock_file import PluginLock, read_lock
from ..records._errors import ConfigError, PluginLoadError, PluginValidationError
from ..registry._registry import HOOK_NAMES, Handler, PluginRecord, Registry
from ._common import event_log_module, hook_order

Status = Literal["ok", "warning", "error"]
_WRITES_PARAMS = re.compile(r"\bparams\s*=(?!=)|[\"']params[\"']\s*:")
_LOG_SCAN_LIMIT = 200_000


@dataclass(frozen=True)
class Check:
    status: Status
    check: str
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "check": self.check, "detail": self.detail, "fix": self.fix}


@dataclass
class Loaded:
    """What the plugin checks built: the registry of plugins that loaded, by name."""

    registry: Registry
    plugins: dict[str, Any]


def check_config(path: Path | None) -> tuple[LoadedConfig, list[Check]]:
    """Syntax and keys of the config; an invalid one is replaced by the defaults for later checks."""
    if path is None:
        found = "no toolhooks.toml, [tool.toolhooks] or $TOOLHOOKS_CONFIG: the defaults apply"
        return load_config(None), [Check("ok", "config", found)]
    try:
        config = load_config(path)
    except ConfigError as exc:
        where = f"{exc.file}:{exc.line}" if exc.line else (exc.file or str(path))
        fix = f"edit {where}" + (f" (key {exc.key})" if exc.key else "")
        error = Check("error", "config", f"{exc} (the checks below use the defaults)", fix)
        return load_config(None), [error]
    tables = ", ".join(f"[{key}]" for key in config.data) or "empty"
    return config, [Check("ok", "config", f"{path}: valid TOML, known keys ({tables})")]


def check_plugin_tables(
    config: LoadedConfig, candidates: list[Candidate], duplicates: list[tuple[Candidate, str]]
) -> list[Check]:
    known = {c.name for c in candidates} | {c.name for c, _ in duplicates}
    checks = []
    for name in config.plugin_tables():
        if name not in known:
            checks.append(
                Check(
                    "error",
                    f"[plugins.{name}]",
                    f"names no installed plugin (installed: {', '.join(sorted(known)) or 'none'})",
                    f"install the plugin that provides {name!r}, or remove the [plugins.{name}] table",
                )
            )
    return checks


def check_lock(config: LoadedConfig) -> tuple[PluginLock | None, Check]:
    """The plugin lock against the installed plugins; the lock to check each plugin with.

    A lock that cannot be read stands in as an empty one: the runtime would refuse to start, and
    no plugin the lock was meant to vet is imported here either."""
    report = lock_report(config)
    fix = "review the changes, then run `toolhooks plugins lock` to approve them"
    if report.state == "none":
        return None, Check(
            "ok", "plugin lock", f"{report.summary} (`toolhooks plugins lock` pins them)"
        )
    assert report.path is not None
    if report.state == "error":
        empty = PluginLock(path=report.path, entries={}, problem="see the plugin lock check")
        write = "run `toolhooks plugins lock` to write it again"
        return empty, Check("error", "plugin lock", report.summary, write)
    lock = read_lock(report.path)
    if report.state == "ok":
        return lock, Check("ok", "plugin lock", report.summary)
    status: Status = "warning" if config.plugins.on_unlocked == "warn" else "error"
    first = report.differences[0]
    more = len(report.differences) - 1
    detail = f"{report.summary}: {first}" + (f" (and {more} more)" if more else "")
    return lock, Check(
        status, "plugin lock", detail, f"`toolhooks plugins lock --check` lists them; {fix}"
    )


def check_plugins(config: LoadedConfig) -> tuple[Loaded, list[Check]]:
    """Every entry point: duplicates, skipped, refused by the lock, imports, validates its
    config, hooks match specs. A plugin the lock refuses is not imported."""
    lock, lock_row = check_lock(config)
    candidates, duplicates = find_entry_points(fresh=True)  # a diagnosis reads the metadata
    checks = [lock_row, *check_plugin_tables(config, candidates, duplicates)]
    for candidate, reason in duplicates:
        checks.append(
            Check(
                "error",
                f"plugin {candidate.name}",
                f"{reason}; the entry point "
                f"'{candidate.label}' from {candidate.from_dist} is ignored",
                f"uninstall one of the two (pip uninstall {candidate.distribution}) or "
                "rename the entry point",
            )
        )
    loaded = Loaded(Registry(), {})
    for candidate in candidates:
        checks.extend(_check_candidate(candidate, config, loaded, lock))
    return loaded, checks


def _check_candidate(
    candidate: Candidate, config: LoadedConfig, loaded: Loaded, lock: PluginLock | None = None
) -> list[Check]:
    label = f"plugin {candidate.name}"
    reason = why_skipped(candidate, config)
    if reason is not None:
        return [Check("ok", label, f"not loaded: {reason}")]
    refused = refusal(lock, candidate) if lock is not None else None
    if refused is not None:
        status: Status = "warning" if config.plugins.on_unlocked == "warn" else "error"
        outcome = "skipped" if status == "warning" else "refused"
        return [
            Check(
                status,
                label,
                f"{outcome}, not imported: {refused} ('{candidate.label}' from "
                f"{candidate.from_dist})",
                "review it, then run `toolhooks plugins lock` to approve it, or uninstall it",
            )
        ]
    try:
        plugin = load(candidate, config)
    except ConfigError as exc:
        fix = f"fix [plugins.{candidate.name}] in {config.file or 'the config'} (see the plugin's docs)"
        return [Check("error", label, f"config does not validate: {exc}", fix)]
    except PluginLoadError as exc:
        fix = (
            f"reinstall {candidate.distribution or 'the distribution'} in this environment and "
            f"check that '{candidate.value}' exists, or add {candidate.name!r} to [plugins] "
            "disable"
        )
        return [Check("error", label, str(exc), fix)]
    settings, _ = config.plugin_settings(candidate.name)
    source = "built-in" if candidate.builtin else "entry point"
    record = PluginRecord(
        candidate.name,
        plugin,
        source,
        settings,
        0,
        candidate.distribution,
        candidate.version,
        candidate.label,
    )
    try:
        loaded.registry.add(record)
    except PluginValidationError as exc:
        _close(plugin)
        fix = (
            f"name the method one of {', '.join(HOOK_NAMES)}, and accept only that hook's arguments"
        )
        return [Check("error", label, f"hooks do not match the specs: {exc}", fix)]
    loaded.plugins[candidate.name] = plugin
    hooks = ", ".join(hook_order(record.hooks)) or "no hooks"
    where = f"{candidate.distribution} {candidate.version or ''}".strip()
    checks = [Check("ok", label, f"imports, config validates, hooks match ({hooks}; {where})")]
    checks.extend(_near_misses(candidate.name, plugin))
    return checks


def _near_misses(name: str, plugin: Any) -> Iterator[Check]:
    """Methods named almost like a hook (``before_tools_call``): they would never run."""
    for attribute in dir(plugin):
        if attribute.startswith("_") or attribute in HOOK_NAMES:
            continue
        close = difflib.get_close_matches(attribute, HOOK_NAMES, n=1, cutoff=0.85)
        if close and callable(getattr(plugin, attribute, None)):
            yield Check(
                "warning",
                f"plugin {name}",
                f"method {attribute!r} looks like the hook "
                f"{close[0]!r} but is not one, so it never runs",
                f"rename it to {close[0]}",
            )


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


def writable(label: str, directory: Path, key: str) -> Check:
    """Can files be created in ``directory`` (or in the folder that will hold it)?"""
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    fix = f"make {existing} writable for this user, or set {key} to a writable place"
    if not existing.is_dir():
        return Check("error", label, f"{existing} is not a folder", fix)
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return Check("error", label, f"cannot write in {existing}: {exc.strerror or exc}", fix)
    if existing != directory:
        return Check("ok", label, f"{directory} will be created (in {existing}, writable)")
    return Check("ok", label, f"{directory} is writable")


def check_folders(loaded: Loaded) -> list[Check]:
    checks = []
    log = loaded.plugins.get("event_log")
    log_path = getattr(log, "path", None)
    if isinstance(log_path, str):
        check = writable("event log", Path(log_path).parent, "[plugins.event_log] path")
        if check.status == "ok" and os.path.exists(log_path) and not os.access(log_path, os.W_OK):
            check = Check(
                "error",
                "event log",
                f"{log_path} exists but is not writable",
                f"chmod u+w {log_path}, or set [plugins.event_log] path elsewhere",
            )
        checks.append(check)
    else:
        checks.append(
            Check("ok", "event log", "the event_log plugin is not loaded: no log written")
        )
    budget = loaded.plugins.get("result_budget")
    store = getattr(budget, "store", None)
    root = getattr(store, "root", None)
    if root is not None:
        checks.append(writable("artifacts", Path(root), "[plugins.result_budget] artifact_dir"))
    elif budget is not None:
        checks.append(
            Check("ok", "artifacts", "store_artifacts = false: full results are not kept")
        )
    return checks


def check_log_chain(loaded: Loaded) -> Check:
    """The event log's hash chain verified (issue #25): tampering is an error."""
    log = loaded.plugins.get("event_log")
    log_path = getattr(log, "path", None)
    reader = event_log_module()
    if not isinstance(log_path, str) or reader is None:
        return Check("ok", "log chain", "no event log is written")
    files = reader.log_files(log_path, include_rotated=True)
    if not files:
        return Check("ok", "log chain", f"{log_path} has no lines yet")
    try:
        report = reader.verify(files)
    except OSError as error:
        return Check("warning", "log chain", f"cannot read {log_path}: {error}")
    if not report.ok:
        return Check(
            "error",
            "log chain",
            f"the log shows tampering: {report.problems[0]}",
            f"toolhooks logs verify {log_path} lists every line that is wrong",
        )
    if not report.chained:
        return Check(
            "warning",
            "log chain",
            f"{log_path} is not hash-chained: an edit would go unnoticed",
            "set [plugins.event_log] chain = true",
        )
    torn = f"; {len(report.torn)} torn line(s) from a crash" if report.torn else ""
    return Check(
        "ok",
        "log chain",
        f"verified {report.chained} lines in {report.writers} chain(s){torn}",
    )


def check_approvals(config: LoadedConfig) -> Check:
    table = config.approvals
    if table.route == "none":
        return Check(
            "ok",
            "approvals",
            "route 'none': a call that needs approval is denied at once "
            '(set [approvals] route = "queue" or "tty" to ask someone)',
        )
    if table.route == "tty":
        try:
            with open("/dev/tty"):
                pass
        except OSError:
            return Check(
                "warning",
                "approvals",
                "route 'tty' but there is no terminal here: approvals will be denied",
                'run the agent in a terminal, or use route = "queue"',
            )
        return Check("ok", "approvals", "route 'tty': approvals are asked on this terminal")
    from ..stores._sqlite import SQLiteStore
    from ..stores._state import state_from

    try:
        state = state_from(config.state)
    except Exception as exc:  # reported by the state check; say where approvals would be
        state, why = None, f"{type(exc).__name__}: {exc}"
        return Check("error", "approvals", f"route 'queue': the shared state is unusable: {why}")
    if state is not None:  # the queue route waits on the shared Redis store, not a file
        return Check(
            "ok",
            "approvals",
            f"route 'queue': approvals in the shared state at {state.label} ([state] url)",
        )
    existed = Path(table.db).expanduser().exists()
    try:
        with SQLiteStore(table.db) as store:
            pending = len(store.open().list(states=["pending"], limit=100_000))
    except Exception as exc:
        return Check(
            "error",
            "approvals",
            f"the approval store {table.db} does not open: {type(exc).__name__}: {exc}",
            "check [approvals] db: its folder must be "
            "writable and the file a toolhooks approvals database",
        )
    made = "" if existed else ", created empty"
    return Check("ok", "approvals", f"route 'queue': {table.db} opens ({pending} pending{made})")


def close_all(loaded: Loaded) -> None:
    for plugin in loaded.plugins.values():
        _close(plugin)


def _close(plugin: Any) -> None:
    closer = getattr(plugin, "close", None)
    if callable(closer) and not inspect.ismodule(plugin):
        with contextlib.suppress(Exception):  # a plugin's close failing is not the doctor's problem
            closer()
