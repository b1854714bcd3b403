"""``toolhooks mcp wrap``: route every server of a Claude-style ``mcpServers`` file through the proxy.

One step in: the servers move to ``[mcp.servers]`` of a toolhooks.toml, and the client's file gets
a single ``toolhooks`` server that runs ``toolhooks mcp serve`` with that config. The original is
kept next to it (``<file>.before-toolhooks``). One step out: ``--undo`` puts the original back.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolhooks import ConfigError
from toolhooks.kit import toml_string, toolhooks_argv

BACKUP_SUFFIX = ".before-toolhooks"
PROXY_NAME = "toolhooks"
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SERVER_NAME = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True, slots=True, kw_only=True)
class Wrapped:
    """What wrapping a file produces: the toolhooks.toml text and the client's new file."""

    toml: str
    client: dict[str, Any]
    servers: tuple[str, ...]


def read_client_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    except ValueError as exc:
        raise ConfigError(f"not JSON: {exc}", file=str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise ConfigError('expected a JSON object with an "mcpServers" object', file=str(path))
    return data


def wrap(data: dict[str, Any], config_path: Path, source: Path) -> Wrapped:
    """The [mcp.servers] tables for ``data``'s servers, and ``data`` with only the proxy left."""
    servers: dict[str, dict[str, Any]] = data["mcpServers"]
    if PROXY_NAME in servers and _is_proxy(servers[PROXY_NAME]):
        raise ConfigError("already wrapped: its servers run through toolhooks", file=str(source))
    tables: list[str] = []
    names: list[str] = []
    for raw_name, entry in servers.items():
        name = _SERVER_NAME.sub("-", raw_name)[:64] or "server"
        if name in names:
            raise ConfigError(f"two servers become {name!r} in toolhooks.toml", file=str(source))
        names.append(name)
        tables.append(_table(name, entry, source))
    header = (
        f"# The MCP servers of {source}, now behind toolhooks (toolhooks mcp wrap).\n"
        f"# Undo: toolhooks mcp wrap --undo {_shell_quote(str(source))}\n"
    )
    toml = header + "\n".join(tables)
    # Not ``python -m toolhooks``: the client starts the proxy in a folder of its choosing (a
    # project), and ``-m`` would import from it first.
    command, *args = toolhooks_argv("mcp", "serve", "--config", str(config_path.resolve()))
    proxy = {"command": command, "args": args}
    client = {**data, "mcpServers": {PROXY_NAME: proxy}}
    return Wrapped(toml=toml, client=client, servers=tuple(names))


def _table(name: str, entry: Any, source: Path) -> str:
    if not isinstance(entry, dict):
        raise ConfigError(f"mcpServers.{name} is not an object", file=str(source))
    lines = [f"[mcp.servers.{_key(name)}]"]
    if "url" in entry:
        lines.append(f"url = {_string(entry['url'])}")
        headers = entry.get("headers")
        if isinstance(headers, dict) and headers:
            lines.append(f"headers = {_inline(headers)}")
    elif "command" in entry:
        lines.append(f"command = {_string(entry['command'])}")
        args = entry.get("args") or []
        if args:
            lines.append("args = [" + ", ".join(_string(a) for a in args) + "]")
        env = entry.get("env")
        if isinstance(env, dict) and env:
            lines.append(f"env = {_inline(env)}")
        if entry.get("cwd"):
            lines.append(f"cwd = {_string(entry['cwd'])}")
    else:
        raise ConfigError(f"mcpServers.{name} has neither command nor url", file=str(source))
    return "\n".join(lines) + "\n"


def _is_proxy(entry: Any) -> bool:
    """The entry ``wrap`` writes: today's, or the ``python -m toolhooks`` of earlier versions."""
    args = entry.get("args", []) if isinstance(entry, dict) else []
    if not isinstance(args, list):
        return False
    return args[:4] == ["-m", "toolhooks", "mcp", "serve"] or args[-4:-2] == ["mcp", "serve"]


def _string(value: Any) -> str:
    return toml_string(str(value))


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _inline(values: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{_key(str(k))} = {_string(v)}" for k, v in values.items()) + " }"


def _shell_quote(text: str) -> str:
    return (
        text if re.fullmatch(r"[A-Za-z0-9_./~-]+", text) else "'" + text.replace("'", "'\\''") + "'"
    )


def write(wrapped: Wrapped, source: Path, config_path: Path) -> None:
    """Write toolhooks.toml (0600: env may hold secrets), back up and rewrite the client file."""
    backup = source.with_name(source.name + BACKUP_SUFFIX)
    if backup.exists():
        raise ConfigError(f"{backup} exists: undo the earlier wrap first", file=str(source))
    if config_path.exists():
        raise ConfigError(
            "exists: not overwritten (print the tables without --write and add them yourself)",
            file=str(config_path),
        )
    fd = os.open(config_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(wrapped.toml)
    backup.write_bytes(source.read_bytes())
    _replace(source, json.dumps(wrapped.client, indent=2) + "\n")


def undo(source: Path) -> None:
    backup = source.with_name(source.name + BACKUP_SUFFIX)
    if not backup.exists():
        raise ConfigError(f"no {backup.name} next to it: nothing to undo", file=str(source))
    _replace(source, backup.read_text(encoding="utf-8"))
    backup.unlink()


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".toolhooks-tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)  # a client reading the file sees the old one or the new one
