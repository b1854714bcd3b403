"""The approval store an ``approvals`` command works on, and how a typed id finds one approval."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config._settings import LoadedConfig
from ..records._errors import ToolhooksError
from ..stores._contract import AmbiguousId, ApprovalStore, StoredApproval, id_key
from ..stores._state import state_from
from ._common import read_config

HANDLE_CHARS = 8


class Failed(ToolhooksError):
    """A command that cannot do what was asked; the message is the one line shown (exit 1)."""


def open_store(args: argparse.Namespace) -> tuple[ApprovalStore, bool]:
    """The store the config selects, and whether it exists yet (a missing file is not made)."""
    if args.db:
        return _sqlite(Path(args.db), None)
    config = read_config(args)
    state = state_from(config.state)
    if state is not None:
        from ..stores._redis import RedisStore

        return RedisStore(state, retention_s=config.approvals.retention_s), True
    return _sqlite(Path(config.approvals.db), config)


def _sqlite(path: Path, config: LoadedConfig | None) -> tuple[ApprovalStore, bool]:
    from ..stores._sqlite import SQLiteStore

    path = path.expanduser()
    if path.is_dir():
        raise Failed(f"{path} is a directory, not an approvals database")
    retention = config.approvals.retention_s if config is not None else None
    store = SQLiteStore(path) if retention is None else SQLiteStore(path, retention)
    exists = path.is_file()
    if exists:
        store.open()
    return store, exists


def find(store: ApprovalStore, key: str) -> StoredApproval:
    """The one approval ``key`` names (full id, short id or a unique prefix)."""
    try:
        row = store.get(key.strip())
    except AmbiguousId as exc:
        shown = []
        for match in exc.matches[:10]:
            found = store.get(match)
            what = "" if found is None else f" ({found.tool}, {found.state})"
            shown.append(f"{id_key(match)}{what}")
        more = f" and {len(exc.matches) - 10} more" if len(exc.matches) > 10 else ""
        raise Failed(
            f"{key!r} matches {len(exc.matches)} approvals: {', '.join(shown)}{more}; "
            "type more of the id"
        ) from None
    if row is None:
        raise Failed(f"no approval {key!r} in {getattr(store, 'where', 'the store')}")
    return row


def handles(ids: list[str]) -> dict[str, str]:
    """Each id's shortest prefix (at least 8 characters) that no other listed id shares."""
    keys = {i: id_key(i) for i in ids}
    shown: dict[str, str] = {}
    for approval_id, key in keys.items():
        size = HANDLE_CHARS
        while size < len(key) and any(
            other != approval_id and k.startswith(key[:size]) for other, k in keys.items()
        ):
            size += 1
        shown[approval_id] = key[:size]
    return shown
