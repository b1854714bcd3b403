"""What ``toolhooks new plugin`` writes: the names derived from NAME, and the rendered templates.

The templates are plain files in ``_plugin_template/`` (package data), rendered with
:class:`string.Template`: ``$name`` placeholders, so the braces of Python, TOML and YAML need no
escaping (a literal ``$``, as in a workflow's ``${{ }}``, is written ``$$``). Every value put into them is either NAME after :func:`names_for` accepted it (lowercase
letters, digits, ``_`` and ``-``) or derived from the installed toolhooks' own metadata and
checked, so nothing a user typed reaches generated code unvalidated.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from importlib import metadata, resources
from importlib.util import find_spec
from string import Template

from ..records._errors import ToolhooksError

NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
MAX_NAME = 40
"""Long enough for ``toolhooks-`` and a plugin name; short enough that every generated line
stays within the generated ruff config's 100 columns."""
PREFIX = "toolhooks_"
"""Dropped from the module name to make the plugin name: ``toolhooks-no-force-push`` is the
plugin ``no_force_push``, configured in ``[plugins.no_force_push]``."""
TAKEN = frozenset({"toolhooks", "pluggy", "pydantic", "pytest", "tomli", "setuptools", "ruff"})
"""Modules the generated package imports or is built and tested with: never its own name."""
PYDANTIC = "pydantic>=2.5,<3"

FILES = {
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    "CHANGELOG.md": "CHANGELOG.md.tmpl",
    ".gitignore": "gitignore.tmpl",
    ".github/workflows/ci.yml": "ci.yml.tmpl",
    "src/$module/__init__.py": "init.py.tmpl",
    "src/$module/plugin.py": "plugin.py.tmpl",
    "tests/test_plugin.py": "test_plugin.py.tmpl",
    "tests/policy.cases.toml": "policy.cases.toml.tmpl",
    "tests/toolhooks.toml": "toolhooks.toml.tmpl",
}
"""Each file written (its path may name the module), and the template it is rendered from."""


class ScaffoldError(ToolhooksError):
    """The package cannot be written as asked (exit 1, this one line)."""


class BadName(ValueError):
    """NAME cannot name the package: the message says why (a usage error, exit 2)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Names:
    """Everything the templates call the new package, all derived from one validated NAME."""

    dist: str
    """The distribution (``pip install``), NAME as given."""
    module: str
    """The import package: NAME with ``-`` as ``_``."""
    plugin: str
    """The entry-point name: the plugin's name and its ``[plugins.<name>]`` table."""
    cls: str
    """The plugin class."""


def names_for(name: str) -> Names:
    """The names for NAME, or BadName saying what is wrong with it."""
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        shown = name if len(name) <= MAX_NAME else name[:MAX_NAME] + "..."
        raise BadName(
            f"{shown!r} is not a usable package name: use at most {MAX_NAME} lowercase letters "
            "and digits, starting with a letter, with single - or _ between words "
            "(e.g. toolhooks-no-force-push)"
        )
    module = name.replace("-", "_")
    if keyword.iskeyword(module):
        raise BadName(f"{name!r} is a Python keyword, so it cannot be a module name")
    if module in TAKEN or module in sys.stdlib_module_names:
        raise BadName(f"{name!r} would shadow the module {module!r}; choose another name")
    plugin = module.removeprefix(PREFIX)
    if not plugin[:1].isalpha():
        raise BadName(
            f"{name!r} leaves the plugin name {plugin!r} (the name after toolhooks-), which "
            "must start with a letter"
        )
    reserved = reserved_plugin_names()
    if plugin in reserved:
        raise BadName(
            f"{name!r} makes the plugin name {plugin!r}, which is taken ({reserved[plugin]}); "
            "choose another name"
        )
    words = [word.capitalize() for word in plugin.split("_")]
    cls = "".join(words) if words[-1] == "Plugin" else "".join(words) + "Plugin"
    return Names(dist=name, module=module, plugin=plugin, cls=cls)


def reserved_plugin_names() -> dict[str, str]:
    """Plugin names a new plugin cannot take, each with why.

    The keys of the ``[plugins]`` table itself (``only``, ``disable``, ...) cannot also be
    ``[plugins.<name>]`` tables; an installed entry point's name (the built-ins' included) would
    make one of the two a blocked duplicate.
    """
    from ..config._settings import PluginsTable

    reserved = dict.fromkeys(PluginsTable.model_fields, "a key of the [plugins] table")
    for entry_point in metadata.entry_points(group="toolhooks"):
        dist = getattr(entry_point, "dist", None)
        owner = dist.metadata["Name"] if dist is not None else None
        why = (
            "a built-in plugin"
            if owner is not None and owner.lower() == "toolhooks"
            else f"the plugin of the installed distribution {owner or '(unknown)'}"
        )
        reserved.setdefault(entry_point.name, why)
    return reserved


def check_importable(names: Names) -> None:
    """BadName when a module of that name is importable already: one would shadow the other."""
    spec = find_spec(names.module)
    if spec is not None:
        where = spec.origin or ", ".join(spec.submodule_search_locations or []) or "?"
        raise BadName(f"a module named {names.module!r} is importable already ({where})")


def toolhooks_requirement() -> tuple[str, str]:
    """The installed toolhooks' version, and the requirement a plugin written for it declares."""
    try:
        version = metadata.version("toolhooks")
    except metadata.PackageNotFoundError:
        raise ScaffoldError(
            "toolhooks has no installed version to depend on (run it from an installation: "
            "pip install -e .)"
        ) from None
    return version, requirement_for(version)


def requirement_for(version: str) -> str:
    """``toolhooks>=X.Y,<X+1`` for toolhooks ``version``: its hook API and every later release of
    the same major version. A pre-, post- or dev-release is its own lower bound (``>=0.2`` would
    leave out ``0.2.0.dev1``); a local label (``+abc``) is dropped, as a range cannot hold one."""
    public = version.split("+", 1)[0]
    release = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)*", public)
    if release is not None:
        major, minor = int(release[1]), int(release[2])
        return f"toolhooks>={major}.{minor},<{major + 1}"
    other = re.fullmatch(r"(\d+)(?:\.\d+)*[a-z0-9.]*", public)
    if other is None:
        raise ScaffoldError(f"toolhooks' installed version {version!r} is not a release number")
    return f"toolhooks>={public},<{int(other[1]) + 1}"


def render(names: Names) -> dict[str, str]:
    """Every file of the package: path relative to the package folder -> its text."""
    version, requirement = toolhooks_requirement()
    python = metadata.metadata("toolhooks")["Requires-Python"] or ">=3.10"
    if not re.fullmatch(r"[<>=!~0-9., *]+", python):
        python = ">=3.10"  # not a plain range: nothing unchecked goes into the file
    values = {
        "dist": names.dist,
        "module": names.module,
        "plugin": names.plugin,
        "cls": names.cls,
        "requirement": requirement,
        "pydantic": PYDANTIC,
        "requires_python": python,
        "toolhooks_version": version,
    }
    folder = resources.files("toolhooks.cli").joinpath("_plugin_template")
    rendered = {}
    for path, template in FILES.items():
        text = folder.joinpath(template).read_text(encoding="utf-8")
        # substitute, not safe_substitute: a placeholder without a value is a bug, not text
        rendered[path.replace("$module", names.module)] = Template(text).substitute(values)
    return rendered
