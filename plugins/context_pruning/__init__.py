"""``prune_context``: soft-trim, then clear, old tool results in a chat history (a function, not
a hook plugin)."""

from ._prune import CLEARED_PLACEHOLDER, PruneReport, prune_context

__all__ = ["CLEARED_PLACEHOLDER", "PruneReport", "prune_context"]
