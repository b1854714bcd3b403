"""The ``toolhooks`` loggers, with ``logging`` imported when something is logged.

Importing ``logging`` is 20 M instructions of a cold start (callgrind): a command-line hook that
logs nothing should not pay it. Until some code imports ``logging``, no handler or level can have
been set, so a debug or info record would be dropped by the default WARNING level: those are
dropped without importing it. Everything else (a warning, an error, any other attribute) imports
``logging`` and goes to the real logger, as ``logging.getLogger(name)`` would.
"""

from __future__ import annotations

import sys
from typing import Any

from .._public import public


class LazyLogger:
    """``logging.getLogger(name)``, made on first real use."""

    __slots__ = ("_logger", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: Any = None

    def _real(self) -> Any:
        if self._logger is None:
            import logging

            self._logger = logging.getLogger(self.name)
        return self._logger

    def debug(self, message: object, *args: object, **kwargs: Any) -> None:
        """``Logger.debug``; dropped unread while ``logging`` was never imported."""
        if self._logger is not None or "logging" in sys.modules:
            self._real().debug(message, *args, **kwargs)

    def info(self, message: object, *args: object, **kwargs: Any) -> None:
        """``Logger.info``; dropped unread while ``logging`` was never imported."""
        if self._logger is not None or "logging" in sys.modules:
            self._real().info(message, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)


public("toolhooks.kit", LazyLogger)
