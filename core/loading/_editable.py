"""An editable install's redirects: the ``.pth`` and setuptools' ``__editable___*_finder.py``
that its RECORD lists instead of the code. Both name this checkout's path, and site.py runs
their ``import`` lines at every interpreter start: the lock hashes them with the path taken out
(an added line shows, the same checkout elsewhere does not), and the finder's ``MAPPING`` says
which folders hold the source (read with ``ast``, never run)."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path


def redirects(dist: metadata.Distribution) -> Iterator[tuple[str, str]]:
    """An editable install's ``.pth`` and setuptools finder, hashed with the checkout's path
    taken out: site.py runs their ``import`` lines at every start, so an edit there must show,
    while the same checkout elsewhere must not."""
    for file in dist.files or ():
        if len(file.parts) != 1 or not is_redirect(file.name):
            continue
        path = Path(str(dist.locate_file(file)))
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            yield file.name, "missing"
            continue
        except (OSError, UnicodeDecodeError) as exc:
            yield file.name, f"unreadable ({type(exc).__name__})"
            continue
        if file.suffix == ".pth":
            # a path line names this checkout (what it holds is hashed as the source); an
            # `import` line is code
            lines = [
                line
                if not line.strip() or line.startswith(("#", "import ", "import\t"))
                else "<path>"
                for line in text.splitlines()
            ]
            text = "\n".join(lines)
        else:
            for folder in sorted(_finder_paths(path), key=len, reverse=True):
                text = text.replace(folder, "<source>")
        yield file.name, hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def is_redirect(name: str) -> bool:
    return name.endswith(".pth") or (
        name.startswith("__editable__") and name.endswith("_finder.py")
    )


def _finder_paths(path: Path) -> set[str]:
    """Every folder setuptools' finder names (``MAPPING`` and ``NAMESPACES`` values)."""
    found = {str(folder) for folder in finder_mapping(path).values()}
    namespaces = _finder_literal(path, "NAMESPACES")
    if isinstance(namespaces, dict):
        for folders in namespaces.values():
            if isinstance(folders, (list, tuple)):
                found |= {folder for folder in folders if isinstance(folder, str)}
    return {folder for folder in found if len(folder) > 1}


def finder_mapping(path: Path) -> dict[str, Path]:
    """setuptools' editable finder: its ``MAPPING = {package: folder}``, read, not imported."""
    mapping = _finder_literal(path, "MAPPING")
    if isinstance(mapping, dict):
        return {str(k): Path(str(v)) for k, v in mapping.items()}
    return {}


def _finder_literal(path: Path, variable: str) -> object:
    """The literal assigned to ``variable`` at the finder's top level, or None."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        target: ast.expr
        value: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == variable and value is not None:
            try:
                return ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
    return None
