"""The exceptions toolhooks raises. A bad tool call is never one of them: it is an Outcome."""

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
