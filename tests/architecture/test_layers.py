"""The core's packages are layers: each imports only from the ones below it, and no module
imports itself back through others (docs/architecture.md draws the same picture)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"

LAYERS = [
    ("records",),
    ("analysis", "scanning"),
    ("registry",),
    ("events",),
    ("stores",),
    ("config",),
    ("loading",),
    ("pipeline",),
    ("kit",),
    ("approvals",),
    ("runtime",),
    ("testing", "web", "agents", "whatif"),
    ("cli",),
]
"""Lowest first; the packages on one line are side by side (they may not import each other)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(CORE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["toolhooks", *parts])


def imports_of(path: Path) -> set[str]:
    """Modules ``path`` imports when it runs: type-checking-only imports do not count, imports
    inside functions do (deferring an import hides a cycle, it does not remove it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.startswith("toolhooks"):
                    if child.module:  # ``from .. import spec`` names a module, not the package
                        found.add(target)
                    found.update(f"{target}.{alias.name}" for alias in child.names)
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name.startswith("toolhooks"))
            visit(child)

    visit(tree)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in CORE.rglob("*.py")}
    return {
        name: {m for m in imports_of(path) if m in modules and m != name}
        for name, path in modules.items()
    }


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 3:
        return None  # the facade, spec.py, __main__: above or beside everything
    for index, packages in enumerate(LAYERS):
        if parts[1] in packages:
            return index
    return None


def test_every_core_package_has_a_layer() -> None:
    packages = {p.name for p in CORE.iterdir() if (p / "__init__.py").exists()}
    placed = {name for layer in LAYERS for name in layer}
    assert packages - {"demo"} <= placed, f"add {sorted(packages - placed - {'demo'})} to LAYERS"


def test_packages_import_only_from_the_layers_below() -> None:
    wrong = []
    for module, imported in graph().items():
        mine = layer_of(module)
        if mine is None:
            continue
        for target in imported:
            if target == "toolhooks" and mine < len(LAYERS) - 2:
                wrong.append(f"{module} imports the facade (import the module that defines it)")
                continue
            theirs = layer_of(target)
            if theirs is None:
                continue
            same_package = target.split(".")[1] == module.split(".")[1]
            if not same_package and theirs >= mine:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_module_imports_itself_back() -> None:
    edges = graph()
    cycles = []
    state: dict[str, int] = {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                walk(target, [*path, target])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            walk(start, [start])
    assert not cycles, "\n".join(cycles)


def test_every_package_is_in_the_distribution():
    """setuptools lists packages by hand (core/ is mapped to toolhooks): a package missing from
    pyproject.toml works in an editable checkout and is absent from the wheel users install."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = CORE.parent
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        module_name(init.parent / "__init__.py")
        for init in CORE.rglob("__init__.py")
        if "_plugin_template" not in init.parts
    }
    found |= {
        "toolhooks.plugins"
        + "".join(f".{p}" for p in init.parent.relative_to(root / "plugins").parts)
        for init in (root / "plugins").rglob("__init__.py")
    }
    assert found - listed == set(), (
        "packages missing from pyproject.toml's [tool.setuptools] packages"
    )
