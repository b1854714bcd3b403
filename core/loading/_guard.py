"""A locked plugin's imports run the files the lock hashed, and only those (issue #32 items 5, 7).

The lock hashes a distribution's files, but the import system picks what runs: an earlier
``sys.path`` entry can hold a module or package of the same name, a namespace portion can come
first, and ``SourceFileLoader`` runs ``__pycache__/*.pyc`` instead of the source whenever its
header (the source's mtime and size, or a hash of the source anyone can compute) matches.

So, once a third-party plugin passes the lock check, its hashed files are held here by module
name, and a finder first on ``sys.meta_path`` looks at every import of those names (and of any
submodule of a locked regular package): the spec the other finders resolve must have a locked
file as its origin, else ImportError naming both; a locked ``.py`` is compiled from its source
bytes, checked against the hash taken at the lock check, never from bytecode (the
choice and its cost: docs/decisions/plugin-lock.md). ``resolution_problem`` makes the same
check before the entry point's module is imported, for the refusal and ``plugins lock --check``.

Nothing here runs without a lock: the finder is put in place by the first locked plugin.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec
from types import CodeType, ModuleType

from ._files import HashedFile

Allowed = dict[str, str]
"""A module's locked files: real path -> sha256."""

_modules: dict[str, Allowed] = {}
_packages: set[str] = set()
_lock = threading.Lock()


def protect(hashed: Iterable[HashedFile]) -> None:
    """Hold the imports of these modules to these files from now on in this process."""
    modules, packages = index(hashed)
    with _lock:
        for name, allowed in modules.items():
            _modules[name] = allowed  # a re-lock in a long-lived process replaces the old hashes
        _packages.update(packages)
        if not any(isinstance(finder, LockedImports) for finder in sys.meta_path):
            sys.meta_path.insert(0, LockedImports())


def forget() -> None:
    """Hold no import any more (``_files.forget``: the files are looked at again)."""
    with _lock:
        _modules.clear()
        _packages.clear()


def index(hashed: Iterable[HashedFile]) -> tuple[dict[str, Allowed], set[str]]:
    """The module names the files are imported as, and which of them are regular packages."""
    modules: dict[str, Allowed] = {}
    packages: set[str] = set()
    for file in hashed:
        found = module_name(file.name)
        if found is None:
            continue
        name, package = found
        modules.setdefault(name, {})[_real(file.path)] = file.sha256
        if package:
            packages.add(name)
    return modules, packages


def module_name(hashed_name: str) -> tuple[str, bool] | None:
    """``pkg/sub.py`` -> ``("pkg.sub", False)``, ``pkg/__init__.py`` -> ``("pkg", True)``;
    None for a file no import reads as a module (data, metadata)."""
    *folders, file = hashed_name.split("/")
    suffixes = importlib.machinery.SOURCE_SUFFIXES + importlib.machinery.EXTENSION_SUFFIXES
    stem = next(
        (file[: -len(s)] for s in sorted(suffixes, key=len, reverse=True) if file.endswith(s)), None
    )
    if stem is None:
        return None
    package = stem == "__init__"
    parts = folders if package else [*folders, stem]
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts), package


def resolution_problem(module: str, hashed: Iterable[HashedFile]) -> str | None:
    """What the import of ``module`` (``pkg.sub``) would run instead of a locked file, found
    without running any of it: each level as it is imported already, else as the finders
    resolve it from its parent's search path. None when each locked level resolves to its
    locked file (levels below a package that must run first are checked by the finder)."""
    modules, packages = index(hashed)
    parts = module.split(".")
    path: Sequence[str] | None = None
    for depth in range(1, len(parts) + 1):
        name = ".".join(parts[:depth])
        loaded = sys.modules.get(name)
        spec = getattr(loaded, "__spec__", None) if loaded is not None else resolve(name, path)
        if spec is None:
            return None  # the import fails: the refusal or the load error says so
        allowed = modules.get(name)
        if allowed is not None or ".".join(parts[: depth - 1]) in packages:
            problem = _problem(name, spec, allowed)
            if problem is not None:
                return problem
        if loaded is not None:
            path = getattr(loaded, "__path__", None)
        else:
            path = spec.submodule_search_locations
        if path is None:
            return None
        path = list(path)
    return None


def resolve(
    name: str, path: Sequence[str] | None, target: ModuleType | None = None
) -> ModuleSpec | None:
    """The spec the import system would find, asking every finder but this module's."""
    for finder in list(sys.meta_path):
        if isinstance(finder, LockedImports):
            continue
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(name, path, target)
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


def _problem(name: str, spec: ModuleSpec, allowed: Allowed | None) -> str | None:
    origin = spec.origin if spec.has_location else None
    where = origin or "a namespace package"
    if allowed is None:
        return (
            f"the import of {name!r} finds {where}, which is not a file of the locked package "
            f"{name.rpartition('.')[0]!r}"
        )
    if origin is None or _real(origin) not in allowed:
        locked = ", ".join(sorted(allowed))
        return f"the import of {name!r} resolves to {where}, not the locked {locked}"
    return None


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class LockedImports:
    """The meta-path finder that holds locked modules to their locked files."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        allowed = _modules.get(name)
        if allowed is None and name.rpartition(".")[0] not in _packages:
            return None
        spec = resolve(name, path, target)
        if spec is None:
            return None
        problem = _problem(name, spec, allowed)
        if problem is not None:
            raise ImportError(f"refused by the plugin lock: {problem}", name=name)
        assert allowed is not None and spec.origin is not None  # _problem checked both
        if spec.origin.endswith(tuple(importlib.machinery.SOURCE_SUFFIXES)):
            spec.loader = LockedSource(name, spec.origin, allowed[_real(spec.origin)])
        return spec

    def invalidate_caches(self) -> None:
        return None


class LockedSource(importlib.machinery.SourceFileLoader):
    """Compiles the source the lock hashed, whatever ``__pycache__`` holds."""

    def __init__(self, name: str, path: str, sha256: str) -> None:
        super().__init__(name, path)
        self.sha256 = sha256

    def get_code(self, fullname: str) -> CodeType:
        data = self.get_data(self.path)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ImportError(
                f"refused by the plugin lock: {self.path} changed after it was checked against "
                "the lock",
                name=fullname,
                path=self.path,
            )
        return self.source_to_code(data, self.path)
