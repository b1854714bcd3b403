"""Coding agents (Claude Code, Codex CLI, Gemini CLI, Cursor, Copilot, Windsurf, Cline) in front
of one toolhooks runtime: each agent's hook protocol, the bridge that runs their events through
the pipeline, and ``toolhooks hook install``.

Names are imported when first used (PEP 562), so ``import toolhooks.agents`` costs nothing and
the stdlib-only hook client pays only for the protocol it speaks.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING`` (and importlib only in ``__getattr__``): each import costs
# the hook client (toolhooks._main) a share of its start; type checkers read any TYPE_CHECKING as
# True.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from ._bridge import AgentBridge
    from ._protocol import (
        PROTOCOLS,
        AgentProtocol,
        HookAnswer,
        HookEvent,
        HookReply,
        ProtocolError,
        protocol,
    )
    from ._run import build_runtime, run_in_process

_EXPORTS = {
    "AgentBridge": "toolhooks.agents._bridge",
    "build_runtime": "toolhooks.agents._run",
    "run_in_process": "toolhooks.agents._run",
    "PROTOCOLS": "toolhooks.agents._protocol",
    "AgentProtocol": "toolhooks.agents._protocol",
    "HookAnswer": "toolhooks.agents._protocol",
    "HookEvent": "toolhooks.agents._protocol",
    "HookReply": "toolhooks.agents._protocol",
    "ProtocolError": "toolhooks.agents._protocol",
    "protocol": "toolhooks.agents._protocol",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolhooks.agents' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "PROTOCOLS",
    "AgentBridge",
    "AgentProtocol",
    "HookAnswer",
    "HookEvent",
    "HookReply",
    "ProtocolError",
    "build_runtime",
    "protocol",
    "run_in_process",
]
