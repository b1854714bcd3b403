"""TEMPORARY until the approvals API (#11) lands on main."""

from __future__ import annotations

try:
    from toolhooks import ToolError
except ImportError:  # pragma: no cover

    class ToolError(Exception):  # type: ignore[no-redef]
        def __init__(self, content: str) -> None:
            super().__init__(content)
            self.content = content
