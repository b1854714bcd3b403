"""``toolhooks doctor``'s checks of what the runtime writes and keeps: the event log's and the
artifacts' folders writable, the event log's hash chain intact, the approval store of
``[approvals] route`` usable.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..config._settings import LoadedConfig
from ._check_plugins import Loaded
from ._checks import Check
from ._common import event_log_module


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
