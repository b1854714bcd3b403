"""An example toolhooks plugin: keeps file tools in a workspace, gates risky commands, redacts."""

from ._guard import WorkspaceGuard

__all__ = ["WorkspaceGuard"]
__version__ = "0.1.0"
