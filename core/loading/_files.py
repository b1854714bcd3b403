"""What a distribution installed, and one sha256 over those files' contents (the plugin lock).

The file list is the distribution's RECORD (what the installer wrote). Each file's own content is
hashed, not RECORD's hash column: an edit after installation leaves RECORD as it was. Left out:

- ``__pycache__`` and ``.pyc`` files (the interpreter rewrites them; they carry timestamps; a
  locked plugin is imported from its source, never from them: ``_guard``);
- RECORD, INSTALLER, REQUESTED and ``direct_url.json`` (the installer's notes: RECORD lists the
  ``.pyc`` hashes, ``direct_url.json`` the folder a wheel was installed from);
- files RECORD places outside the import folder (``../../bin/toolhooks``: console scripts, whose
  first line names this machine's interpreter), which no plugin import reads.

An editable install's RECORD lists a redirect (a ``.pth`` path or setuptools'
``__editable___*_finder.py``), not the code. For one (``direct_url.json`` says
``editable: true``), and for a distribution with no RECORD at all, the hash covers its metadata
folder, the redirects with the checkout's path taken out (``_editable``), and the source the
imports really read: each package folder the setuptools finder maps,
else each top-level name (``top_level.txt`` and the modules its entry points name) as the import
system finds it, without running it. Those files are named by module path, not by where the
checkout is, so the same source gives the same hash on any machine. An ``.egg-info`` folder in a
source tree counts as no RECORD: its SOURCES.txt lists the sdist, not what the imports read.

Hashed once per process, by metadata folder: code already imported here is what was hashed.
Each file's own hash is kept (``Fingerprint.hashed``): a locked plugin's imports are held to it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ._editable import finder_mapping, is_redirect, redirects
from ._own import metadata_folder

_finder_mapping = finder_mapping  # its name in the tests of issue #24

INSTALLER_NOTES = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True, kw_only=True)
class Fingerprint:
    """One sha256 over a distribution's files, and how many there were."""

    sha256: str
    files: int
    editable: bool
    hashed: tuple[HashedFile, ...] = field(default=(), compare=False)
    """Each file as it was hashed: what the imports of a locked plugin are held to (``_guard``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HashedFile:
    name: str
    """Its name in the hash: its path from the import folder (``pkg/mod.py``)."""
    path: str
    sha256: str


_cache: dict[str, Fingerprint] = {}
_cache_lock = threading.Lock()


def fingerprint(dist: metadata.Distribution) -> Fingerprint:
    """The distribution's fingerprint, hashed on first use in this process."""
    key = metadata_folder(dist)
    cached = _cache.get(str(key)) if key is not None else None
    if cached is not None:
        return cached
    editable = is_editable(dist)
    found = compute(dist, editable)
    if key is not None:
        with _cache_lock:
            found = _cache.setdefault(str(key), found)
    return found


def forget() -> None:
    """Drop the per-process hashes (a long-lived tool that must look at the files again), and
    the imports held to them: the next lock check holds them to the files as they are then."""
    with _cache_lock:
        _cache.clear()
    guard = sys.modules.get(f"{__package__}._guard")
    if guard is not None:
        guard.forget()


def compute(dist: metadata.Distribution, editable: bool) -> Fingerprint:
    entries = sorted(set(installed_files(dist, editable)))
    hashed = [
        HashedFile(name=name, path=str(path), sha256=file_sha256(path)) for name, path in entries
    ]
    notes = sorted(redirects(dist)) if editable else []
    digest = hashlib.sha256()
    for name, sha256 in [(file.name, file.sha256) for file in hashed] + notes:
        digest.update(f"{name}\0{sha256}\n".encode("utf-8", "surrogateescape"))
    return Fingerprint(
        sha256=digest.hexdigest(),
        files=len(entries) + len(notes),
        editable=editable,
        hashed=tuple(hashed),
    )


def is_editable(dist: metadata.Distribution) -> bool:
    """PEP 610: the installer wrote ``direct_url.json`` with ``dir_info.editable``."""
    try:
        text = dist.read_text("direct_url.json")
        info = json.loads(text) if text else None
    except (OSError, ValueError):
        return False
    dir_info = info.get("dir_info") if isinstance(info, dict) else None
    return isinstance(dir_info, dict) and dir_info.get("editable") is True


def installed_files(dist: metadata.Distribution, editable: bool) -> Iterator[tuple[str, Path]]:
    """(name in the hash, file on disk) for every file the fingerprint covers."""
    recorded = dist.files if _has_install_record(dist) else None
    for file in recorded or ():
        if _covered(file, editable):
            yield file.as_posix(), Path(str(dist.locate_file(file)))
    if recorded is not None and not editable:
        return
    if recorded is None:
        yield from _metadata_files(dist)
    yield from _source_files(dist, recorded or [])


def _covered(file: metadata.PackagePath, editable: bool) -> bool:
    """A recorded file the fingerprint hashes: inside the install, not bytecode, not a note the
    installer writes, not an editable install's redirect (it names this checkout's path:
    hashed without it, by _redirects)."""
    parts = file.parts
    if not parts or parts[0] == ".." or os.path.isabs(str(file)) or _compiled(parts):
        return False
    if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] in INSTALLER_NOTES:
        return False
    return not (editable and len(parts) == 1 and is_redirect(parts[0]))


def _metadata_files(dist: metadata.Distribution) -> Iterator[tuple[str, Path]]:
    """The metadata folder's files, for a distribution with no install record."""
    folder = metadata_folder(dist)
    if folder is not None and folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name not in INSTALLER_NOTES:
                yield f"{folder.name}/{path.name}", path


def _has_install_record(dist: metadata.Distribution) -> bool:
    """RECORD, or an old egg's installed-files.txt. Not SOURCES.txt, which importlib.metadata
    falls back to: an ``.egg-info`` in a source tree lists the sdist's sources, not what the
    imports read."""
    folder = metadata_folder(dist)
    if folder is None or not folder.name.endswith(".egg-info"):
        return True
    return (folder / "installed-files.txt").is_file()


def file_sha256(path: Path) -> str:
    """The file's sha256, or a marker that changes the fingerprint when it is gone or unreadable."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or type(exc).__name__})"
    return digest.hexdigest()


def _compiled(parts: tuple[str, ...]) -> bool:
    return "__pycache__" in parts or parts[-1].endswith((".pyc", ".pyo"))


def _source_files(
    dist: metadata.Distribution, recorded: list[metadata.PackagePath]
) -> Iterator[tuple[str, Path]]:
    """The files the imports of an editable (or unrecorded) distribution read."""
    roots: dict[str, list[Path]] = {}
    for file in recorded:
        if file.name.startswith("__editable__") and file.name.endswith("_finder.py"):
            for name, folder in finder_mapping(Path(str(dist.locate_file(file)))).items():
                roots[name] = [folder]
    for top in sorted(top_level_names(dist) - set(roots)):
        try:
            # A top-level name, or one whose parent is imported: the finders look, nothing runs.
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        if spec.submodule_search_locations:
            roots[top] = sorted(Path(location) for location in spec.submodule_search_locations)
        elif spec.origin and os.path.isfile(spec.origin):
            roots[top] = [Path(spec.origin)]
    for name, found in sorted(roots.items()):
        prefix = name.replace(".", "/")
        for root in found:
            yield from _tree(prefix, root)


def _tree(prefix: str, root: Path) -> Iterator[tuple[str, Path]]:
    """A module file, or every file of a package folder but compiled ones, named from ``prefix``."""
    if root.is_file():
        yield f"{prefix}{root.suffix}", root
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        relative = Path(folder).relative_to(root).as_posix()
        for file_name in sorted(files):
            if not file_name.endswith((".pyc", ".pyo")):
                inside = file_name if relative == "." else f"{relative}/{file_name}"
                yield f"{prefix}/{inside}", Path(folder) / file_name


def top_level_names(dist: metadata.Distribution) -> set[str]:
    """``top_level.txt``'s names and the modules its entry points name, as far as finding them
    runs no code: a top-level name, or one whose parent package is already imported (the
    built-ins' ``toolhooks.plugins`` may live in a folder of its own)."""
    names = set((dist.read_text("top_level.txt") or "").split())
    for entry_point in dist.entry_points:
        parts = entry_point.value.split(":", 1)[0].strip().split(".")
        for depth in range(1, len(parts) + 1):
            if depth > 1 and ".".join(parts[: depth - 1]) not in sys.modules:
                break
            names.add(".".join(parts[:depth]))
    names.discard("")
    return names
