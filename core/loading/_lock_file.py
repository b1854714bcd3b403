"""The plugin lock's file: TOML, one ``[plugins.<name>]`` table per plugin, sorted, written by
``toolhooks plugins lock`` so that a change shows as a small diff in review; read and validated
(pydantic, ``extra="forbid"``) with errors that name the file and the line.

Only imported when a lock is in use (or written): its schema costs import time that a runtime
without a lock should not pay.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..config._settings import LoadedConfig, locate, read_toml
from ..records._errors import ConfigError

LOCK_VERSION = 1


class _LockedTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entry_point: str = Field(min_length=1)
    distribution: str | None = None
    version: str | None = None
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    files: int = Field(ge=0, strict=True)
    editable: bool = Field(default=False, strict=True)


class _LockTable(BaseModel):
    # Other top-level tables belong to add-ons (``[mcp]``: the MCP proxy's pinned tools); the
    # core neither reads nor checks them, and keeps their text when it rewrites the plugins.
    model_config = ConfigDict(extra="allow")
    lock_version: Literal[1]
    plugins: dict[str, _LockedTable] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _addons_are_tables(self) -> _LockTable:
        for key, value in (self.model_extra or {}).items():
            if not isinstance(value, dict):
                raise ValueError(f"unknown key {key!r}: a lock holds lock_version and tables")
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class LockEntry:
    """One plugin as the lock pins it (or as it is installed now)."""

    name: str
    entry_point: str
    distribution: str | None
    version: str | None
    sha256: str
    files: int
    editable: bool = False
    shadowed: str | None = None
    """For the installed plugin: what its import would run instead of a locked file (never in
    the lock file)."""

    @property
    def label(self) -> str:
        where = f"{self.distribution} {self.version or ''}".strip() or "an unknown distribution"
        return f"'{self.name} = {self.entry_point}' from {where}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PluginLock:
    """A lock file, read and validated."""

    path: Path
    entries: Mapping[str, LockEntry]
    problem: str | None = None
    """Set for a lock that could not be read: it stands in for it, and refuses every plugin."""

    def line_of(self, name: str) -> int | None:
        return locate(self.path, ("plugins", name))


_read: dict[str, tuple[tuple[int, int, int], PluginLock]] = {}
_read_lock = threading.Lock()


def read_lock(path: Path) -> PluginLock:
    """The validated lock file; ConfigError naming the file and line when it is not one."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ConfigError(
            f"cannot read the plugin lock: {exc.strerror or exc}", file=str(path)
        ) from None
    stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
    seen = _read.get(str(path))
    if seen is not None and seen[0] == stamp:
        return seen[1]
    data = read_toml(path)  # a file nested too deeply is a ConfigError there
    checker = LoadedConfig(data, path)
    try:
        table = _LockTable.model_validate(data)
    except ValidationError as exc:
        error = checker.validation_error(exc, model=_LockTable)
        line, loc = error.line, tuple(str(part) for part in exc.errors()[0]["loc"])
        while line is None and len(loc) > 1:  # a missing key: its table's header line
            loc = loc[:-1]
            line = locate(path, loc)
        raise ConfigError(
            f"not a toolhooks plugin lock: {_after_location(error)} (write it again with "
            "`toolhooks plugins lock`)",
            file=str(path),
            key=error.key,
            line=line,
        ) from None
    entries = {
        name: LockEntry(
            name=name,
            entry_point=locked.entry_point,
            distribution=locked.distribution,
            version=locked.version,
            sha256=locked.sha256,
            files=locked.files,
            editable=locked.editable,
        )
        for name, locked in table.plugins.items()
    }
    lock = PluginLock(path=path, entries=entries)
    with _read_lock:
        _read[str(path)] = (stamp, lock)
    return lock


def _after_location(error: ConfigError) -> str:
    """A ConfigError's text without its leading ``file:line: ``."""
    where = error.file or "<config>"
    if error.line is not None:
        where = f"{where}:{error.line}"
    return str(error).removeprefix(f"{where}: ")


def render(entries: Iterable[LockEntry], config_name: str, addons: str = "") -> str:
    """The lock file's text: deterministic (sorted, no timestamps), one table per plugin, then
    ``addons``: the add-ons' tables (``addon_text``) as they were."""
    lines = [
        f"# The plugins toolhooks may load with {config_name}, written by `toolhooks plugins lock`.",
        "# A plugin not listed here, or whose entry point, distribution, version or files differ,",
        "# is refused. Run the command again after installing, upgrading or editing a plugin, and",
        "# review the diff. sha256 covers the distribution's installed files (PLUGINS.md).",
        f"lock_version = {LOCK_VERSION}",
    ]
    for entry in sorted(entries, key=lambda e: e.name):
        lines.append("")
        lines.append(f"[plugins.{_key(entry.name)}]")
        lines.append(f"entry_point = {_string(entry.entry_point)}")
        if entry.distribution is not None:
            lines.append(f"distribution = {_string(entry.distribution)}")
        if entry.version is not None:
            lines.append(f"version = {_string(entry.version)}")
        lines.append(f'sha256 = "{entry.sha256}"')
        lines.append(f"files = {entry.files}")
        if entry.editable:
            lines.append("editable = true")
    text = "\n".join(lines) + "\n"
    return text + "\n" + addons.strip("\n") + "\n" if addons.strip() else text


_HEADER = re.compile(r"^\[\[?\s*([A-Za-z0-9_-]+)")


def split_lock(text: str) -> tuple[str, str]:
    """A lock's text as the core's part and the add-ons' part, which starts at the first table
    header that is not a plugin's (``render`` writes the plugins first, the add-ons after)."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        found = _HEADER.match(line)
        if found is not None and found.group(1) != "plugins":
            return "\n".join(lines[:number]) + "\n", "\n".join(lines[number:]) + "\n"
    return text, ""


def addon_text(text: str) -> str:
    """The add-ons' part of a lock's text (``split_lock``)."""
    return split_lock(text)[1]


def replace_addon(addons: str, name: str, tables: str) -> str:
    """``addons`` with the tables under ``[name]`` replaced by ``tables`` (or added last)."""
    kept: list[str] = []
    owner: str | None = None
    for line in addons.splitlines():
        found = _HEADER.match(line)
        if found is not None:
            owner = found.group(1)
        if owner != name:
            kept.append(line)
    text = "\n".join(kept).strip("\n")
    new = tables.strip("\n")
    return "\n\n".join(part for part in (text, new) if part) + "\n" if text or new else ""


def write(path: Path, text: str) -> None:
    """Replace the file in one step: a reader never sees half a lock."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _string(name)


def _string(text: str) -> str:
    """A TOML basic string (every control character escaped, as TOML requires)."""
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
