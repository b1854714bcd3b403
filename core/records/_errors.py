"""The exceptions toolhooks raises, all under :class:`ToolhooksError`.

A bad tool call proposed by a model is never raised: it is an Outcome. The ``ValueError`` ones keep
``ValueError`` as a second base, so that code written as ``except ValueError`` still catches them.
"""

from __future__ import annotations


class ToolhooksError(Exception):
    """Base class of every toolhooks error."""


class ConfigError(ToolhooksError):
    """A config file or mapping that cannot be used; the message names the file, key and line."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        key: str | None = None,
        line: int | None = None,
    ) -> None:
        where = file or "<config>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")
        self.file = file
        self.key = key
        self.line = line


class PluginLoadError(ToolhooksError):
    """An entry point that failed to import, instantiate or register."""

    def __init__(
        self, message: str, *, entry_point: str | None = None, distribution: str | None = None
    ) -> None:
        super().__init__(message)
        self.entry_point = entry_point
        self.distribution = distribution


class PluginValidationError(ToolhooksError, ValueError):
    """A plugin whose hooks do not match the specs (unknown hook, unknown argument, wrapper)."""


class HookResultError(ToolhooksError, ValueError):
    """A handler returned something that is not a valid result (names the field)."""


class ParamsError(ToolhooksError, ValueError):
    """Params that cannot be handed to a tool: cycles, excessive depth, unsupported types."""


class InvalidToolCall(ToolhooksError, ValueError):
    """A proposed call that cannot enter the pipeline; the runtime turns it into an Outcome."""
