"""toolhooks for LangChain: ``ToolhooksMiddleware`` for ``create_agent``, approvals as interrupts."""

from ._middleware import ToolhooksMiddleware

__all__ = ["ToolhooksMiddleware"]
