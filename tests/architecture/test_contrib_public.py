"""The contrib packages and the built-in plugins use only toolhooks' public API: a package that
imports a private module breaks the day the core moves it (issue #22), and a built-in that needs
one shows a third party cannot write what it does (issue #33: ``toolhooks.kit`` is for that).
Walks every import of every source file."""

from __future__ import annotations

import ast
from pathlib import Path

import toolhooks

ROOT = Path(__file__).resolve().parents[2]
CONTRIB = ROOT / "contrib"
PLUGINS = ROOT / "plugins"


def private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules, names = [node.module], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "toolhooks":
                continue
            if any(part.startswith("_") for part in parts):
                found.append(f"{path.name}:{node.lineno}: {module}")
            elif module == "toolhooks":
                found += [f"{path.name}:{node.lineno}: toolhooks.{n}" for n in names
                          if n not in toolhooks.__all__]  # fmt: skip
            else:
                public = getattr(__import__(module, fromlist=["__all__"]), "__all__", None)
                if public is not None:
                    found += [f"{path.name}:{node.lineno}: {module}.{n}" for n in names
                              if n not in public]  # fmt: skip
    return found


def test_contrib_imports_nothing_private_from_toolhooks() -> None:
    sources = sorted(CONTRIB.glob("*/src/**/*.py"))
    assert len(sources) > 20  # the walk really reads the packages
    found = [line for path in sources for line in private_imports(path)]
    assert found == [], "\n".join(found)


def test_the_builtin_plugins_import_nothing_private_from_toolhooks() -> None:
    sources = sorted(p for p in PLUGINS.rglob("*.py") if "tests" not in p.parts)
    assert len(sources) > 40
    found = [
        f"{path.relative_to(PLUGINS)}: {line}" for path in sources for line in private_imports(path)
    ]
    assert found == [], "\n".join(found)
