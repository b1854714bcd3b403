"""The exceptions toolhooks raises, all under :class:`ToolhooksError`.

A bad tool call proposed by a model is never raised: it is an Outcome. The ``ValueError`` ones keep
``ValueError`` as a second base, so that code written as ``except ValueError`` still catches them.
"""

from __future__ import annotations

from functools import partial

from .._public import public


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
        super().__init__(f"{_where(file, line)}: {message}")
        self.file = file
        self.key = key
        self.line = line

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle and copy rebuild an exception as ``type(self)(*self.args)``; args holds the text
        # with its place in front, which __init__ would put in front again.
        message = str(self.args[0])[len(_where(self.file, self.line)) + 2 :]
        rebuild = partial(type(self), file=self.file, key=self.key, line=self.line)
        return rebuild, (message,), self.__dict__


def _where(file: str | None, line: int | None) -> str:
    """The place a ConfigError's message starts with: ``file:line``, ``<config>`` unnamed."""
    where = file or "<config>"
    return where if line is None else f"{where}:{line}"


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


public(
    "toolhooks",
    ConfigError,
    HookResultError,
    InvalidToolCall,
    ParamsError,
    PluginLoadError,
    PluginValidationError,
    ToolhooksError,
)
