"""An agent's hook settings read and written safely, for ``toolhooks hook install`` (``_install``).

Two kinds: a JSON file (``settings_kind = "json"``), or a directory of executable hook scripts
named after the event (``"script-dir"``, Cline). Every write is atomic (an agent reading its
settings sees the old file or the new one). The undo record (``<name>.toolhooks-undo``, next to
the settings) keeps what the first install found, so a second install does not forget it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..records._errors import ConfigError
from ._protocol import AgentProtocol

UNDO_SUFFIX = ".toolhooks-undo"
SCRIPT_MODE = 0o755


def settings_kind(proto: AgentProtocol) -> str:
    """``"json"`` (a settings file) or ``"script-dir"`` (a folder of hook scripts)."""
    return str(getattr(proto, "settings_kind", "json"))


def undo_path(path: Path) -> Path:
    """Where install keeps what it found at ``path``."""
    return path.with_name(path.name + UNDO_SUFFIX)


def read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings object and the file's exact text (None: no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", file=str(path)) from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ConfigError(f"not JSON ({error}); fix or move it first", file=str(path)) from None
    if not isinstance(data, dict):
        raise ConfigError("not a JSON object; fix or move it first", file=str(path))
    return data, text


def read_scripts(path: Path, names: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in names:
        try:
            found[name] = (path / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read hook script {name}: {error}", file=str(path)) from None
    return found


def write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Atomically: an agent reading its settings sees the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keep = mode
    if keep is None and path.exists():
        keep = path.stat().st_mode & 0o777
    temporary = path.with_name(path.name + ".toolhooks-tmp")
    temporary.write_text(text, encoding="utf-8")
    if keep is not None:
        os.chmod(temporary, keep)
    os.replace(temporary, path)


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def missing_dirs(folder: Path) -> list[str]:
    """The folders writing into ``folder`` will create, outermost first."""
    missing: list[str] = []
    while not folder.exists() and folder != folder.parent:
        missing.insert(0, str(folder))
        folder = folder.parent
    return missing


def record_undo(path: Path, record: dict[str, Any]) -> None:
    """What install found, kept once: a second install must not forget the first original."""
    record_path = undo_path(path)
    earlier = read_record(record_path)
    if earlier is not None:
        record = {**record, "before": earlier.get("before"), "made": earlier.get("made", [])}
    record_path.parent.mkdir(parents=True, exist_ok=True)
    write_text(record_path, dump(record), 0o600)


def read_record(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the undo record: {error}", file=str(path)) from None
    return data if isinstance(data, dict) else None
