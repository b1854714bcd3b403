"""Which installed distribution is the toolhooks that is running: its ``toolhooks`` entry points
are the built-ins, and no other distribution's are, whatever its metadata calls it.

A distribution owns the imported ``toolhooks`` package when its files contain it: its metadata
folder sits next to the package (a wheel's ``site-packages``, a source tree's ``.egg-info``), or
its RECORD lists the editable redirect that put it on the import path (setuptools' finder, the
module already imported whose ``MAPPING`` names the package's folder; or a ``.pth`` in a site
folder naming the folder that holds it). Text a planted ``*.dist-info`` can say (``Name:``,
RECORD lines naming files elsewhere) is never enough: a RECORD line is only looked at for a
redirect in the distribution's own folder, and a redirect counts only when it is live.

Read without ``importlib.metadata``: the entry-point cache asks on every start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = __name__.split(".", 1)[0]
GROUP = "toolhooks"


def metadata_folder(dist: object) -> Path | None:
    """A distribution's ``.dist-info`` / ``.egg-info`` folder (here, not in ``_files``: the
    scan needs it without the hashing's imports)."""
    # PathDistribution keeps it here; the public API has no name for it. Another kind of
    # distribution (a zip, a custom finder) has none.
    folder = getattr(dist, "_path", None)
    return Path(folder) if isinstance(folder, (str, os.PathLike)) else None


def package_init() -> str | None:
    """The imported package's ``__init__.py``."""
    found = getattr(sys.modules.get(PACKAGE), "__file__", None)
    return found if isinstance(found, str) else None


def owns_toolhooks(folder: str | os.PathLike[str] | None) -> bool:
    """Whether the metadata folder ``folder`` installed the imported ``toolhooks`` package."""
    init = package_init()
    if folder is None or init is None:
        return False
    where = Path(folder)
    site = where.parent
    if _same(site / PACKAGE / "__init__.py", init):
        return True
    for name in _recorded(where):
        if "/" in name or "\\" in name:
            continue  # a redirect sits in the site folder itself
        if name.startswith("__editable__") and name.endswith("_finder.py"):
            if _live_finder(site / name, init):
                return True
        elif name.endswith(".pth") and _pth_names(site / name, init):
            return True
    return False


def entry_points(folder: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The ``[toolhooks]`` section of the folder's ``entry_points.txt``: (name, value) in file
    order (pairs, not records: this module is imported by every start, a dataclass costs)."""
    try:
        text = Path(folder, "entry_points.txt").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    found: list[tuple[str, str]] = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == GROUP and "=" in line:
            name, value = line.split("=", 1)
            found.append((name.strip(), value.strip()))
    return found


def name_and_version(folder: str | os.PathLike[str]) -> tuple[str | None, str | None]:
    """``Name`` and ``Version`` from the METADATA (or PKG-INFO) headers."""
    for file in ("METADATA", "PKG-INFO"):
        try:
            with open(Path(folder, file), encoding="utf-8") as handle:
                headers: dict[str, str] = {}
                for line in handle:
                    if not line.strip():
                        break
                    key, _, value = line.partition(":")
                    headers.setdefault(key.strip().lower(), value.strip())
        except (OSError, UnicodeDecodeError):
            continue
        return headers.get("name"), headers.get("version")
    return None, None


def _same(path: str | os.PathLike[str], other: str) -> bool:
    try:
        return os.path.samefile(path, other)
    except (OSError, ValueError):
        return False


def _recorded(folder: Path) -> list[str]:
    import csv  # only an editable install's start reads a RECORD

    try:
        with open(folder / "RECORD", encoding="utf-8", newline="") as handle:
            return [row[0] for row in csv.reader(handle) if row]
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _live_finder(path: Path, init: str) -> bool:
    """setuptools' editable finder, imported by its ``.pth`` at start-up, maps the package."""
    module = sys.modules.get(path.stem)
    if module is None or not _same(path, str(getattr(module, "__file__", "") or "")):
        return False
    mapping = getattr(module, "MAPPING", None)
    folder = mapping.get(PACKAGE) if isinstance(mapping, dict) else None
    return isinstance(folder, str) and _same(os.path.join(folder, "__init__.py"), init)


def _pth_names(path: Path, init: str) -> bool:
    """A ``.pth`` that site.py read (it sits in a site folder) names the package's parent."""
    if not any(_same(path.parent, folder) for folder in _site_folders()):
        return False
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    for line in lines:
        entry = line.rstrip()
        if not entry or entry.startswith(("#", "import ", "import\t")):
            continue
        if _same(os.path.join(path.parent, entry, PACKAGE, "__init__.py"), init):
            return True
    return False


def _site_folders() -> list[str]:
    import site

    folders = list(getattr(site, "getsitepackages", list)())
    user = getattr(site, "getusersitepackages", None)
    if user is not None and site.ENABLE_USER_SITE:
        folders.append(user())
    return folders
