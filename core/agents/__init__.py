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

# ``_EXPORTS`` is the list; these imports are the type checkers' copy (``X as X``: exported under
# strict mypy, which cannot read a computed ``__all__``); tests/architecture/test_public_names.py
# proves they agree.
if TYPE_CHECKING:
    from ._bridge import AgentBridge as AgentBridge
    from ._places import hook_settings_places as hook_settings_places
    from ._protocol import PROTOCOLS as PROTOCOLS
    from ._protocol import AgentProtocol as AgentProtocol
    from ._protocol import HookAnswer as HookAnswer
    from ._protocol import HookEvent as HookEvent
    from ._protocol import HookReply as HookReply
    from ._protocol import ProtocolError as ProtocolError
    from ._protocol import protocol as protocol
    from ._run import build_runtime as build_runtime
    from ._run import run_in_process as run_in_process

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
    "hook_settings_places": "toolhooks.agents._places",
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


__all__ = sorted(_EXPORTS)
