"""The public names: the facade's list written once (``_EXPORTS``; the type checkers' imports
proved equal to it), and every public exception a ``ToolhooksError`` but ``ToolError``, which
tools raise (issue #33 item 4; docs/decisions/public-names.md)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import toolhooks
import toolhooks.plugins
from toolhooks import ToolError, ToolhooksError

FACADE = Path(toolhooks.__file__)
CONTRIB = (
    "toolhooks_example",
    "toolhooks_langchain",
    "toolhooks_mcp",
    "toolhooks_openai_agents",
    "toolhooks_pydantic_ai",
)


def type_checking_imports() -> dict[str, str]:
    """Name -> module of the facade's ``if TYPE_CHECKING:`` imports (what mypy reads), each
    written ``X as X`` so that strict mypy sees it exported."""
    names: dict[str, str] = {}
    for node in ast.parse(FACADE.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom) and imported.module, ast.unparse(
                    imported
                )
                for alias in imported.names:
                    assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
                    names[alias.name] = "toolhooks." + imported.module
    return names


def test_the_facade_writes_its_names_once() -> None:
    assert toolhooks.__all__ == sorted(toolhooks._EXPORTS)
    assert type_checking_imports() == toolhooks._EXPORTS


def test_every_facade_name_is_its_modules_object() -> None:
    for name, module in toolhooks._EXPORTS.items():
        assert getattr(toolhooks, name) is getattr(importlib.import_module(module), name), name


def public_modules() -> list[ModuleType]:
    """toolhooks' packages a user imports (no ``_`` in the path, an ``__all__``), the built-in
    plugins' packages and the contrib packages installed here."""
    names = [
        info.name
        for info in pkgutil.walk_packages(toolhooks.__path__, "toolhooks.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    names += [
        f"toolhooks.plugins.{info.name}"
        for info in pkgutil.iter_modules(toolhooks.plugins.__path__)
    ]
    names += [name for name in CONTRIB if importlib.util.find_spec(name) is not None]
    modules = [toolhooks, *(importlib.import_module(name) for name in names)]
    return [module for module in modules if hasattr(module, "__all__")]


NOT_TOOLHOOKS_ERRORS = {
    "toolhooks.agents.ProtocolError": "the stdlib hook client imports its protocol module before "
    "any daemon answers, and a protocol module imports only the stdlib and toolhooks.agents "
    "(tests/agents/golden/test_golden_protocols.py): ToolhooksError lives in toolhooks.records",
}
"""Public exceptions that stay outside ToolhooksError, each with its reason."""


def test_every_public_exception_is_a_toolhooks_error_but_tool_error() -> None:
    modules = public_modules()
    assert {"toolhooks", "toolhooks.kit", "toolhooks.testing"} <= {m.__name__ for m in modules}
    outside = set()
    for module in modules:
        for name in module.__all__:
            value = getattr(module, name)
            error = isinstance(value, type) and issubclass(value, BaseException)
            if error and not issubclass(value, ToolhooksError) and value is not ToolError:
                outside.add(f"{module.__name__}.{name}")
    assert outside == set(NOT_TOOLHOOKS_ERRORS), (
        f"make these ToolhooksError subclasses: {sorted(outside - set(NOT_TOOLHOOKS_ERRORS))}"
    )
