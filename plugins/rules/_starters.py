"""The starter policies shipped with the rules plugin, as package files (``policies/*.toml``):
the how-to includes them, the tests load them, ``toolhooks init`` can write one out.

- ``deny-list``: for an agent that still asks its user before a command runs. It names what
  must never run (force pushes, recursive deletes outside ``build/``, secrets, egress outside an
  allow list, a download piped into a shell); anything else runs, and the agent's own prompts
  stay in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

STARTER_POLICIES: Final = ("deny-list", "allow-list")
"""The names :func:`starter_policy` and :func:`starter_policy_path` take."""
_FOLDER: Final = Path(__file__).resolve().parent / "policies"


def starter_policy_path(name: str = "deny-list") -> Path:
    """The file of starter policy ``name`` (one of :data:`STARTER_POLICIES`): a complete
    ``toolhooks.toml`` holding ``[plugins.rules]`` and its ``[[rules]]``."""
    if name not in STARTER_POLICIES:
        known = ", ".join(repr(one) for one in STARTER_POLICIES)
        raise ValueError(f"no starter policy named {name!r} (known: {known})")
    return _FOLDER / f"{name}.toml"


def starter_policy(name: str = "deny-list") -> str:
    """The text of starter policy ``name`` (one of :data:`STARTER_POLICIES`), to write as a
    ``toolhooks.toml`` or to append to one that has no ``[[rules]]`` yet."""
    return starter_policy_path(name).read_text(encoding="utf-8")
