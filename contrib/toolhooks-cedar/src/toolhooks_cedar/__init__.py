"""toolhooks-cedar: Cedar policies decide tool calls by who asks, which tool, which params, when,
and what the session has seen. The plugin is ``cedar`` (``[plugins.cedar]``); the request
mapping is in ``_request``, the decision mapping in ``_decide``."""

from ._plugin import CedarPlugin

__all__ = ["CedarPlugin"]
__version__ = "0.1.0"
