"""One hook event in this process: ``toolhooks hook AGENT`` without a daemon (and the daemon's
fallback). Building the runtime costs what a Python start-up with the plugins costs (a few
hundred milliseconds); the daemon (``toolhooks agentd``) holds one runtime instead.

What survives between two hook processes: approvals, their decisions and allow-always grants
(the approvals store: the SQLite file ``[approvals] db``, or Redis with ``[state] url``), the
hand-over from a call's before event to its after event (``agent-calls.db`` next to it), and,
with ``[state] url`` only, loop-detection sessions and call-limit counters. Without the daemon
and without ``[state] url`` those last two start empty in every hook process: loop detection and
call limits do nothing across calls (PLUGINS.md, "Coding agents").
"""

from __future__ import annotations

from pathlib import Path

from ..config._settings import LoadedConfig, discover, load_config
from ..runtime._runtime import Runtime
from ..stores._contract import ApprovalStore
from ..stores._labels_sqlite import SQLiteLabelStore
from ..stores._sqlite import SQLiteStore
from ._bridge import AgentBridge
from ._protocol import HookAnswer, HookReply, ProtocolError, protocol, read_payload

LABELS_FILE = "labels.db"
"""Next to the approvals database: labels, labelled result tokens and trusted input."""


def load(config: Path | None) -> LoadedConfig:
    """The config at ``config``, else the one ``discover`` finds (else the defaults)."""
    if config is None:
        config, _ = discover()
    return load_config(config)


def build_runtime(config: LoadedConfig) -> Runtime:
    """The runtime an agent's hooks use: approvals always in a store other processes read.

    An approval a hook meets must be decidable from another process (``toolhooks approvals``,
    the desk) and finishable by the call's after event, which may run in another process: with
    ``route = "none"`` or ``"tty"`` the runtime would keep it in memory, so hooks use the
    ``[approvals] db`` file (or Redis with ``[state] url``) whatever the route.
    """
    store: ApprovalStore | None = None
    table = config.approvals
    if config.state.url is None and table.route != "queue":
        store = SQLiteStore(
            table.db, retention_s=table.retention_s, poll_interval_s=table.poll_interval_s
        ).open()
    runtime = Runtime(config=config, approval_store=store)
    if config.state.url is None:
        # Labels and trusted input outlive the hook process too (``from`` rules): a file next
        # to the approvals database, unless Redis keeps them.
        runtime.label_store = SQLiteLabelStore(Path(table.db).expanduser().parent / LABELS_FILE)
    return runtime


def _has_rules(config: Path | None) -> bool:
    """Whether the config may have ``[[rules]]`` (a prompt is trusted input only for them);
    True when unsure, so the prompt is recorded."""
    try:
        return bool(load(config).data.get("rules"))
    except Exception:
        return True


def run_in_process(agent: str, raw: bytes, *, config: Path | None) -> HookReply:
    """Answer one hook event with a runtime built for it; never raises, but an ``ImportError``
    when this install cannot run toolhooks at all."""
    try:
        proto = protocol(agent)
    except ProtocolError as error:
        return HookReply(stdout="", stderr=f"toolhooks: {error}\n", exit_code=2)
    try:  # an event that is not about a governed call needs no runtime
        event = proto.parse(read_payload(raw))
        if event.phase == "other":
            return proto.render(event, HookAnswer(action="none"))
        if event.phase == "prompt" and not _has_rules(config):
            return proto.render(event, HookAnswer(action="none"))
    except ProtocolError:
        pass  # the bridge refuses it, in the log too
    try:
        loaded = load(config)
    except ImportError:
        # Not the config: this install cannot run toolhooks (pydantic is imported only when a
        # table is validated). The caller answers without a runtime, with the on_error its
        # stdlib reading of the config gives, as when importing this module itself failed.
        raise
    except Exception as error:  # no config to say otherwise: fail closed
        return proto.refuse(_payload(raw), f"the config cannot be read: {error}")
    try:
        runtime = build_runtime(loaded)
    except Exception as error:
        reason = f"toolhooks cannot start: {type(error).__name__}: {error}"
        if loaded.agents.on_error == "allow":
            try:
                event = proto.parse(read_payload(raw, loaded.agents.max_payload_bytes))
                return proto.render(event, HookAnswer(action="none"))
            except ProtocolError:
                pass
        return proto.refuse(_payload(raw), reason)
    try:
        bridge = AgentBridge(runtime)
        try:
            return bridge.handle(agent, raw)
        finally:
            bridge.close()
    finally:
        runtime.close()


def _payload(raw: bytes) -> dict[str, object] | None:
    try:
        return read_payload(raw)
    except ProtocolError:
        return None
