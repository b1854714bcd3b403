"""The public names: each package's list written once (``_EXPORTS``; the type checkers' imports
proved equal to it), every class and function in it named after the package (``toolhooks.X``)
whatever was imported first, and what that naming must not break: type hints, pydantic,
dataclasses, pickle and copy; and every public exception a ``ToolhooksError`` but ``ToolError``,
which tools raise (issue #33 item 4; docs/decisions/public-names.md)."""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib
import importlib.util
import inspect
import io
import json
import pickle
import pkgutil
import subprocess
import sys
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest
import toolhooks
import toolhooks.kit
import toolhooks.plugins
from toolhooks import ToolError, ToolhooksError
from toolhooks.stores._contract import stored_from_pending

PACKAGES = ("toolhooks", "toolhooks.kit")
"""The packages whose names are named after them (``toolhooks.X``), from one name list,
``_EXPORTS`` (name -> the module that defines it)."""

LISTED = (*PACKAGES, "toolhooks.agents")
"""Every package written as one name list. ``toolhooks.agents``' names keep their modules' names:
its protocol modules may import only the stdlib and toolhooks.agents
(tests/agents/golden/test_golden_protocols.py), so they cannot end with ``public()``
(docs/decisions/public-names.md)."""

VALUES = {
    "toolhooks": {"EVENT_NAMES", "Origin", "REMOVE", "Status", "UNSET"},
    "toolhooks.kit": {"EXTERNAL_BLOCKED_TOOLS"},
}
"""The names that are values (a tuple, a sentinel, a ``Literal`` alias), not classes or functions:
they have no ``__module__`` of their own to name."""

CONTRIB = (
    "toolhooks_example",
    "toolhooks_langchain",
    "toolhooks_mcp",
    "toolhooks_openai_agents",
    "toolhooks_pydantic_ai",
)


def package(name: str) -> ModuleType:
    return importlib.import_module(name)


def public_objects() -> list[tuple[str, str, Any]]:
    """(package, name, object) for every class and function of every ``_EXPORTS``."""
    return [
        (pkg, name, getattr(package(pkg), name))
        for pkg in PACKAGES
        for name in package(pkg)._EXPORTS
        if name not in VALUES[pkg]
    ]


def public_classes() -> dict[str, type]:
    return {name: value for _, name, value in public_objects() if isinstance(value, type)}


# -- one list -----------------------------------------------------------------------------------


def exported_imports(path: Path) -> dict[str, str]:
    """Name -> module of the ``from M import X as X`` imports at the top of a package's source,
    under ``if TYPE_CHECKING:`` or not: what mypy reads as exported (strict mypy's
    no-implicit-reexport needs ``X as X``; it cannot read a computed ``__all__``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package_name = "toolhooks" if path.parent.name == "core" else f"toolhooks.{path.parent.name}"
    names: dict[str, str] = {}
    for node in tree.body:
        block = node.body if isinstance(node, ast.If) else [node]
        type_checking = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for imported in block:
            if not isinstance(imported, ast.ImportFrom) or imported.module == "__future__":
                continue
            assert imported.module, ast.unparse(imported)
            module = imported.module
            if imported.level:  # ``from .records._models import X``
                base = package_name.split(".")[: len(package_name.split(".")) - imported.level + 1]
                module = ".".join([*base, module])
            for alias in imported.names:
                if type_checking:
                    assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
                if alias.asname == alias.name:
                    names[alias.name] = module
    return names


@pytest.mark.parametrize("name", LISTED)
def test_the_package_writes_its_names_once(name: str) -> None:
    module = package(name)
    assert module.__all__ == sorted(module._EXPORTS)
    assert exported_imports(Path(module.__file__)) == module._EXPORTS


def test_every_public_package_with_a_name_table_is_written_so() -> None:
    """A public package that imports lazily through ``_EXPORTS`` writes its list once."""
    tabled = {m.__name__ for m in public_modules() if hasattr(m, "_EXPORTS")}
    assert tabled == set(LISTED)


@pytest.mark.parametrize("name", LISTED)
def test_every_name_is_its_modules_object(name: str) -> None:
    module = package(name)
    for export, defined_in in module._EXPORTS.items():
        assert getattr(module, export) is getattr(importlib.import_module(defined_in), export), (
            export
        )


@pytest.mark.parametrize("name", LISTED)
def test_each_name_is_defined_where_the_table_says(name: str) -> None:
    """The docs read field docstrings from that module's source (docs/_ext/toolhooks_docs.py)."""
    for export, defined_in in package(name)._EXPORTS.items():
        spec = importlib.util.find_spec(defined_in)
        assert spec is not None and spec.origin, defined_in
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        defined = set()
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined.update(t.id for t in targets if isinstance(t, ast.Name))
        assert export in defined, f"{export} is not defined in {defined_in}"


# -- toolhooks.X --------------------------------------------------------------------------------


def test_every_class_and_function_is_named_after_its_package() -> None:
    wrong = [
        f"{name}: {value.__module__}"
        for pkg, name, value in public_objects()
        if value.__module__ != pkg
    ]
    assert not wrong, "end its module with public(package, Name): " + ", ".join(wrong)
    for pkg, name, value in public_objects():
        assert isinstance(value, type) or inspect.isroutine(value), f"{name}: add it to VALUES"
        if isinstance(value, type):
            assert repr(value) == f"<class '{pkg}.{name}'>"
    for pkg in PACKAGES:
        for name in VALUES[pkg]:
            value = getattr(package(pkg), name)
            assert not isinstance(value, type) and not inspect.isroutine(value), name


@pytest.mark.parametrize("name", PACKAGES)
def test_the_name_does_not_depend_on_what_was_imported_first(name: str) -> None:
    """In a fresh process, each defining module imported directly (the package's lazy
    ``__getattr__`` never asked) already names its public objects after the package."""
    probe = """
import importlib, json, sys
package, table = sys.argv[1], json.loads(sys.argv[2])
seen = {}
for name, module in table.items():
    value = getattr(importlib.import_module(module), name)
    asked = package in sys.modules and name in vars(sys.modules[package])
    seen[name] = [getattr(value, "__module__", None), asked]
print(json.dumps(seen))
"""
    table = {n: m for n, m in package(name)._EXPORTS.items() if n not in VALUES[name]}
    done = subprocess.run(
        [sys.executable, "-c", probe, name, json.dumps(table)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen.keys() == table.keys()
    for export, (module, asked) in seen.items():
        assert not asked, f"{export} was read through {name}: the probe proves nothing"
        assert module == name, f"{name}.{export} is named {module} when imported first"


def test_only_public_names_are_named_after_a_package() -> None:
    """A class or function renamed ``toolhooks.X`` but missing from ``_EXPORTS`` could not be
    unpickled (pickle finds it through the package) nor documented."""
    public_modules()  # imports every public package, and so most of the core
    stray = []
    for module in list(sys.modules.values()):
        if not module.__name__.startswith("toolhooks.") or module.__name__ in PACKAGES:
            continue
        for name, value in vars(module).items():
            if isinstance(value, type) or inspect.isroutine(value):
                pkg = getattr(value, "__module__", None)
                if pkg in PACKAGES and getattr(package(pkg), value.__name__, None) is not value:
                    stray.append(f"{module.__name__}.{name} says {pkg}")
    assert not stray, stray


def test_a_traceback_names_the_public_class() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from toolhooks.records._errors import ConfigError\n"
            "raise ConfigError('unknown key', file='toolhooks.toml', line=3)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "toolhooks.ConfigError: toolhooks.toml:3: unknown key"


# -- what the naming must not break -------------------------------------------------------------

NO_HINTS = {
    "LoadedConfig": "its agents table's type is imported for type checkers only (the config "
    "module is on every cold start, the agents table is not)",
    "Runtime": "its parts (runtime/_approvals.py, _labels.py, _tools.py) name types imported "
    "for type checkers only",
}
"""Public classes whose annotations ``typing.get_type_hints`` could not resolve before their
``__module__`` was the package either."""


def test_type_hints_resolve_for_every_public_class() -> None:
    """Annotations are resolved in ``__module__``'s namespace, now the package's: the defining
    modules evaluate them when the class is made (no ``from __future__ import annotations``)."""
    for name, value in public_classes().items():
        if name in NO_HINTS:
            with pytest.raises(NameError):
                typing.get_type_hints(value)
            continue
        hints = typing.get_type_hints(value)
        assert all(not isinstance(hint, (str, typing.ForwardRef)) for hint in hints.values())
    assert typing.get_type_hints(toolhooks.ToolCall)["spec"] == toolhooks.ToolSpec | None
    assert (
        typing.get_type_hints(toolhooks.kit.Script)["commands"] == tuple[toolhooks.kit.Command, ...]
    )


def test_a_users_pydantic_model_can_hold_public_records() -> None:
    """pydantic reads a dataclass field's types from ``sys.modules[cls.__module__]``."""

    class Audit(pydantic.BaseModel):
        call: toolhooks.ToolCall
        result: toolhooks.ToolResult
        spec: toolhooks.ToolSpec | None = None
        plugin: toolhooks.PluginInfo | None = None
        grant: toolhooks.Grant | None = None
        word: toolhooks.kit.Word | None = None

    audit = Audit.model_validate(
        {
            "call": toolhooks.ToolCall(name="read_file", params={"path": "a.txt"}),
            "result": {"status": "ok", "content": "text"},
            "spec": {"name": "read_file"},
            "word": {"text": "ls", "source": "ls"},
        }
    )
    assert audit.call.params == {"path": "a.txt"}
    assert audit.result == toolhooks.ToolResult(status="ok", content="text")
    assert audit.spec == toolhooks.ToolSpec(name="read_file")
    assert audit.word == toolhooks.kit.Word(text="ls", source="ls")
    with pytest.raises(pydantic.ValidationError, match="status"):
        Audit.model_validate({"call": audit.call, "result": {"status": "maybe"}})


def test_dataclasses_see_the_public_records() -> None:
    spec = toolhooks.ToolSpec(name="read_file", tags=frozenset({"read_only"}))
    assert dataclasses.replace(spec, name="cat") == toolhooks.ToolSpec(
        name="cat", tags=frozenset({"read_only"})
    )
    assert dataclasses.asdict(toolhooks.ToolResult(status="ok", content="x"))["content"] == "x"

    @dataclasses.dataclass
    class Attempt:  # a user's dataclass holding a public record
        call: toolhooks.ToolCall
        spec: toolhooks.ToolSpec | None = None

    assert typing.get_type_hints(Attempt)["call"] is toolhooks.ToolCall
    assert [f.name for f in dataclasses.fields(toolhooks.Sender)][:2] == ["id", "name"]


def samples() -> dict[str, Any]:
    """One value of each public record and exception class, fields set where they can be."""
    call = toolhooks.ToolCall(
        name="write_file",
        params={"path": "a.txt", "lines": [1, 2]},
        session_id="s1",
        sender={"id": "u1", "roles": ["dev"]},
        spec=toolhooks.ToolSpec(name="write_file", tags=frozenset({"side_effect"})),
    )
    request = toolhooks.ApprovalRequest(title="Write a.txt?", description="Writes a file")
    pending = toolhooks.PendingApproval(
        id="ap_1",
        short_id="ap1",
        call=call,
        plugin="policy",
        request=request,
        digest="d1",
        expires_at=10.0,
        proposed_params={"path": "a.txt"},
        rewritten_by={"path": "policy"},
    )
    script = toolhooks.kit.analyse_script("cd /tmp && rm -rf build > log", cwd="/w", home="/h")
    simple = (
        "ToolhooksError",
        "HookResultError",
        "InvalidToolCall",
        "ParamsError",
        "PluginValidationError",
        "ApprovalUnavailable",
        "StoreError",
    )
    return {
        "ToolCall": call,
        "ToolSpec": call.spec,
        "Sender": call.sender,
        "FrozenDict": call.params,
        "FrozenList": call.params["lines"],
        "ApprovalRequest": request,
        "PendingApproval": pending,
        "StoredApproval": stored_from_pending(pending, expires_at=20.0),
        "Grant": toolhooks.Grant.new(
            plugin="policy", tool="write_file", sender="u1", session=None, by="me"
        ),
        "ToolResult": toolhooks.ToolResult(status="ok", value={"n": 1}, content="done"),
        "Outcome": toolhooks.Outcome(
            status="pending",
            content="waiting",
            call_id=call.id,
            trace_id=call.trace_id,
            pending=pending,
            notes=["a note"],
        ),
        "Decision": toolhooks.Decision(
            status="pending",
            call_id=call.id,
            trace_id=call.trace_id,
            tool="write_file",
            pending=pending,
        ),
        "BeforeToolCallResult": toolhooks.BeforeToolCallResult(
            params={"path": "b.txt"}, require_approval=request
        ),
        "AfterToolCallResult": toolhooks.AfterToolCallResult(content="hidden", labels=("secret",)),
        "ApprovalDecision": toolhooks.ApprovalDecision(decision="allow-once", by="me"),
        "Event": toolhooks.Event(
            event="tool_call_finished", trace_id=call.trace_id, call_id=call.id, data={"n": 1}
        ),
        "HandlerInfo": toolhooks.HandlerInfo(
            plugin="policy",
            hook="before_tool_call",
            priority=100,
            timeout_s=None,
            inline=True,
            is_async=False,
            on_error="fail_closed",
            mode="sync",
            tools=("write_*",),
        ),
        "PluginInfo": toolhooks.PluginInfo(
            name="policy",
            version="1",
            distribution="toolhooks",
            priority=100,
            hooks=("before_tool_call",),
            mode="sync",
            enabled=True,
            source="entry_point",
        ),
        "LoadedConfig": toolhooks.load_config({"plugins": {"policy": {}}}),
        "Script": script,
        "Command": script.commands[1],
        "Word": script.commands[1].argv[0],
        "ConfigError": toolhooks.ConfigError("bad", file="toolhooks.toml", key="k", line=3),
        "PluginLoadError": toolhooks.PluginLoadError("no", entry_point="x = y:Z", distribution="x"),
        "AmbiguousId": toolhooks.AmbiguousId("ab", ["abd", "abc"]),
        "ToolError": toolhooks.ToolError("no such file"),
        "StateUnavailable": toolhooks.kit.StateUnavailable("redis is down"),
        "Finding": toolhooks.kit.find_pii("mail a@example.org")[0],
        **{name: getattr(toolhooks, name)(f"a {name}") for name in simple},
    }


THAWED = {"FrozenDict": dict, "FrozenList": list}
"""Read-only params copy to plain, mutable ones (records/_frozen.py), pickled or copied."""


class Recording(pickle.Unpickler):
    """An unpickler that notes each (module, name) the pickle looks up."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.found: list[tuple[str, str]] = []

    def find_class(self, module: str, name: str) -> Any:
        self.found.append((module, name))
        return super().find_class(module, name)


def test_every_public_record_and_exception_pickles_and_copies() -> None:
    values = samples()
    records = {
        name
        for name, value in public_classes().items()
        if dataclasses.is_dataclass(value)
        or issubclass(value, BaseException)
        or name in ("ApprovalRequest", "Event", *THAWED)
    }
    assert records == set(values), "add a sample for each public record and exception"
    private = {  # the classes' own modules: pickle must find them through their package
        (defined_in, name)
        for pkg in PACKAGES
        for name, defined_in in package(pkg)._EXPORTS.items()
        if name not in VALUES[pkg]
    }
    for name, value in values.items():
        data = pickle.dumps(value)
        reader = Recording(data)
        copies = [reader.load(), copy.copy(value), copy.deepcopy(value)]
        for other in copies:
            assert type(other) is THAWED.get(name, type(value)), name
            if isinstance(value, BaseException):
                assert (other.args, vars(other)) == (value.args, vars(value)), name
            else:
                assert other == value, name
        assert not private & set(reader.found), f"{name} pickles a private path: {reader.found}"
        own = type(value)
        if own.__reduce__ is object.__reduce__ or issubclass(own, BaseException):
            assert (own.__module__, own.__qualname__) in reader.found, name


# -- exceptions ---------------------------------------------------------------------------------


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
