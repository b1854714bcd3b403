"""``toolhooks logs export``: an excerpt of the log, after a ``log.export`` header naming each
writer's hash just before it, so that ``toolhooks logs verify --excerpt`` checks it alone."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any


def export(files: list[str], since: float | None, until: float | None) -> Iterator[bytes]:
    """The lines written from ``since`` to ``until`` (unchanged bytes), after a header naming
    each writer's last hash before them, so that the excerpt verifies on its own."""
    heads: dict[str, dict[str, Any]] = {}
    started = since is None
    sent = False
    for name in files:
        with open(name, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n") or not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if type(record) is not dict:
                    continue
                ts = record.get("ts")
                moment = ts if type(ts) in (int, float) else None
                if until is not None and moment is not None and moment > until:
                    return
                if not started and moment is not None and since is not None and moment >= since:
                    started = True
                if not started:
                    chain: Any = record.get("chain")
                    if chain_shaped(chain):
                        heads[chain["writer"]] = {"seq": chain["seq"], "hash": chain["hash"]}
                    continue
                if not sent:
                    header = {"ts": time.time(), "event": EXPORT_EVENT, "heads": heads}
                    yield json.dumps(header, separators=(",", ":")).encode() + b"\n"
                    sent = True
                yield raw


EXPORT_EVENT = "log.export"


def export_heads(raw: bytes) -> dict[str, tuple[int, str]] | None:
    """An export's header line read: each writer's seq and hash just before the excerpt; None
    when the line is not such a header."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if type(record) is not dict or record.get("event") != EXPORT_EVENT or "chain" in record:
        return None
    heads = record.get("heads")
    if type(heads) is not dict:
        return None
    return {
        writer: (head["seq"], head["hash"])
        for writer, head in heads.items()
        if type(head) is dict and type(head.get("seq")) is int and type(head.get("hash")) is str
    }


def chain_shaped(chain: Any) -> bool:
    """Whether ``chain`` has the writer's fields with their types (a verified line's may not)."""
    return (
        type(chain) is dict
        and type(chain.get("writer")) is str
        and type(chain.get("seq")) is int
        and chain["seq"] >= 0
        and type(chain.get("prev")) is str
        and type(chain.get("hash")) is str
    )
