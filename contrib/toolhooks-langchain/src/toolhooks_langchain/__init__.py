"""toolhooks for LangChain: ``ToolhooksMiddleware`` for ``create_agent``, approvals as interrupts."""

from ._approvals import InterruptApprover, approval_payload
from ._middleware import ToolhooksMiddleware

__all__ = ["InterruptApprover", "ToolhooksMiddleware", "approval_payload"]
