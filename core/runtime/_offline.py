"""A runtime whose made-up calls reach nothing the real ones reach: what ``toolhooks whatif``
(recorded calls again) and ``toolhooks test`` (policy cases) run their calls through.

Taken out of the config's runtime: the sinks that send events where the real ones go (the event
log, OpenTelemetry), the shared state (``[state]`` and ``$TOOLHOOKS_STATE_URL``: counters,
sessions, grants and paused calls of the real agents), the approval store (a memory store
instead of the queue's SQLite file or Redis), and the artifact folder of trimmed results (a
folder of the caller's instead). Every plugin still runs as configured otherwise, so that the
decisions are the ones the config gives.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ..approvals._resolve import Approver
from ..config._settings import LoadedConfig
from ..stores._contract import ApprovalStore
from ..stores._memory import MemoryStore
from ..stores._state import STATE_DEFAULTS, STATE_ENV
from ._runtime import Runtime

SWITCHED_OFF = ("event_log", "otel")
"""Built-in sinks that would send the made-up calls' events where the real ones go."""


def offline_config(config: LoadedConfig, artifacts: str) -> LoadedConfig:
    """``config`` without the sinks, the shared state and the artifact folder of the real one."""
    data = {**config.data}
    plugins = {**data.get("plugins", {})}
    budget = plugins.get("result_budget")
    plugins["result_budget"] = {**(budget if isinstance(budget, dict) else {})}
    plugins["result_budget"]["artifact_dir"] = artifacts
    data["plugins"] = plugins
    drop = [name for name in SWITCHED_OFF if name not in config.plugins.disable]
    disabled = config.with_plugins(disable=[*config.plugins.disable, *drop])
    return dataclasses.replace(disabled, data=data, state=STATE_DEFAULTS)


@contextlib.contextmanager
def no_shared_state() -> Iterator[None]:
    """``$TOOLHOOKS_STATE_URL`` hidden while a runtime is built (it reads it once, then)."""
    saved = os.environ.pop(STATE_ENV, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[STATE_ENV] = saved


def offline_runtime(
    config: LoadedConfig,
    *,
    artifacts: str,
    plugins: Sequence[Any] = (),
    approver: Approver | None = None,
    approval_store: ApprovalStore | None = None,
) -> Runtime:
    """A runtime of ``config`` (plus ``plugins``) kept away from the real log and shared state;
    trimmed results go to ``artifacts``, paused calls to ``approval_store`` (else memory)."""
    store = approval_store if approval_store is not None else MemoryStore(retention_s=0)
    with no_shared_state():
        return Runtime(
            config=offline_config(config, artifacts),
            plugins=plugins,
            approver=approver,
            approval_store=store,
        )
