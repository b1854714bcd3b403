"""Reference pages generated from the source, so the docs cannot drift from the code.

Three directives, and one rule for autodoc:

- ``toolhooks-config module:Model`` (option ``:table:``): one row per key of a pydantic config
  model (nested tables as dotted keys), with its type, constraints, default and the field's
  docstring or description.
- ``toolhooks-cli module:build_parser``: every command and subcommand of the argparse parser,
  with its description and the ``--help`` text argparse prints.
- ``toolhooks-modules package``: each module of a package with the first paragraph of its
  docstring (read with ``ast``, nothing is imported), for the architecture page.
- A public name's ``__module__`` is its package (``toolhooks.ToolCall``, not the private module
  that defines it: docs/decisions/public-names.md). autodoc reads a class's field docstrings and
  their source order from the source of the module ``__module__`` names, so the module the
  package's ``_EXPORTS`` names is read instead: :func:`defining_module` where autodoc asks
  through its ``getattr`` hook, :func:`public_analyzers` where it reads ``cls.__module__``
  itself.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import itertools
import json
import os
import re
import sys
import textwrap
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import annotated_types
from docutils import nodes
from docutils.parsers.rst import directives
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.inspect import safe_getattr

logger = logging.getLogger(__name__)

HELP_COLUMNS = "100"
"""argparse wraps ``--help`` to $COLUMNS; fixed so the page is the same on every machine."""

_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`")


def resolve(target: str) -> Any:
    """``package.module:Name.attr`` -> the object."""
    module_name, _, attrs = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for attr in filter(None, attrs.split(".")):
        obj = getattr(obj, attr)
    return obj


def inline(text: str) -> list[nodes.Node]:
    """Text with ``code`` spans as literal nodes (docstrings use RST's double backticks)."""
    out: list[nodes.Node] = []
    position = 0
    for match in _LITERAL.finditer(text):
        if match.start() > position:
            out.append(nodes.Text(text[position : match.start()]))
        code = match.group(1) or match.group(2)
        out.append(nodes.literal(code, code))
        position = match.end()
    if position < len(text):
        out.append(nodes.Text(text[position:]))
    return out


def table(headers: list[str], rows: list[list[list[nodes.Node]]], widths: list[int]) -> nodes.table:
    tgroup = nodes.tgroup(cols=len(headers))
    for width in widths:
        tgroup += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += _row([[nodes.Text(h)] for h in headers])
    tgroup += head
    body = nodes.tbody()
    for row in rows:
        body += _row(row)
    tgroup += body
    result = nodes.table()
    result += tgroup
    return result


def _row(cells: list[list[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


# -- config tables ------------------------------------------------------------------------------


def attribute_docs(model: type) -> dict[str, str]:
    """The string literal right under each field (the project's way to document a field)."""
    docs: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)) or klass is BaseModel:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        body = ast.parse(source).body[0]
        assert isinstance(body, ast.ClassDef)
        statements = body.body
        for statement, following in itertools.pairwise(statements):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs


def model_of(annotation: Any) -> type[BaseModel] | None:
    return (
        annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    )


def strip_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *extra = typing.get_args(annotation)
        metadata.extend(extra)
    return annotation, metadata


def type_name(annotation: Any) -> str:
    annotation, _ = strip_annotated(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is type(None):
        return "none"
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        names = [type_name(arg) for arg in args if arg is not type(None)]
        return " | ".join(names)
    if origin in (list, tuple, set, frozenset):
        inner = [arg for arg in args if arg is not Ellipsis]
        item = type_name(inner[0]) if inner else "any"
        return (
            f"list of {item}"
            if model_of(strip_annotated(inner[0])[0]) is None
            else "list of tables"
        )
    if origin is dict:
        return "table"
    if model_of(annotation) is not None:
        return "table"
    return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
        getattr(annotation, "__name__", ""), str(annotation)
    )


_BOUNDS = (
    (annotated_types.Ge, "ge", "≥"),
    (annotated_types.Gt, "gt", ">"),
    (annotated_types.Le, "le", "≤"),
    (annotated_types.Lt, "lt", "<"),
)


def constraints(field: FieldInfo) -> str:
    metadata = list(field.metadata)
    bare, extra = strip_annotated(field.annotation)
    metadata.extend(extra)
    if typing.get_origin(bare) in (typing.Union, types.UnionType):  # ``Annotated[int, ...] | None``
        for arg in typing.get_args(bare):
            metadata.extend(strip_annotated(arg)[1])
    parts: list[str] = []
    for item in metadata:
        if isinstance(item, FieldInfo):  # ``Annotated[int, Field(ge=1)]`` nests one
            metadata.extend(item.metadata)
            continue
        for kind, attr, sign in _BOUNDS:
            if isinstance(item, kind):
                parts.append(f"{sign} {getattr(item, attr):_}")
        if isinstance(item, annotated_types.MinLen) and item.min_length:
            parts.append(f"at least {item.min_length} long")
        if isinstance(item, annotated_types.MaxLen):
            parts.append(f"at most {item.max_length} long")
    return ", ".join(parts)


def default_text(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.default
    if value is PydanticUndefined and field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    if isinstance(value, BaseModel):
        return "(see below)"
    if value is None:
        return "unset"
    try:
        return json.dumps(value, ensure_ascii=False, default=lambda o: o.model_dump(mode="json"))
    except TypeError:
        return repr(value)


def default_cell(text: str) -> nodes.Node:
    """A value as code; "unset", "required" and "(see below)" are words, not values."""
    return nodes.Text(text) if text in _NOT_VALUES else nodes.literal(text, text)


_NOT_VALUES = ("unset", "required", "(see below)")


def config_rows(
    model: type[BaseModel], prefix: str, models: set[type[BaseModel]] | None = None
) -> Iterator[tuple[str, FieldInfo, str]]:
    """(dotted key, field, doc) for every key of ``model``, sub-tables expanded after their key.

    Every model visited is added to ``models`` (their files are the page's dependencies).
    """
    if models is not None:
        models.add(model)
    docs = attribute_docs(model)
    for name, field in model.model_fields.items():
        key = field.alias or name
        dotted = f"{prefix}{key}"
        annotation, _ = strip_annotated(field.annotation)
        doc = field.description or docs.get(name, "")
        if not doc and model_of(annotation) is not None:  # a sub-table: its class docstring
            own = annotation.__dict__.get("__doc__") or ""  # not BaseModel's inherited one
            doc = inspect.cleandoc(own).split("\n\n", 1)[0]
        yield dotted, field, doc
        origin = typing.get_origin(annotation)
        args = [strip_annotated(arg)[0] for arg in typing.get_args(annotation)]
        nested = model_of(annotation)
        if nested is not None:
            yield from config_rows(nested, f"{dotted}.", models)
        elif origin in (list, tuple) and args and model_of(args[0]) is not None:
            yield from config_rows(args[0], f"{dotted}[].", models)
        elif origin is dict and len(args) == 2 and model_of(args[1]) is not None:
            yield from config_rows(args[1], f"{dotted}.<name>.", models)
        elif origin in (typing.Union, types.UnionType):
            for arg in args:
                if model_of(arg) is not None:
                    yield from config_rows(arg, f"{dotted}.", models)


class ConfigTable(SphinxDirective):
    """``.. toolhooks-config:: module:Model`` with ``:table: plugins.name``."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"table": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        model = resolve(self.arguments[0])
        if model_of(model) is None:
            raise self.error(f"{self.arguments[0]} is not a pydantic model")
        table_name = self.options.get("table")
        out: list[nodes.Node] = []
        if table_name:
            heading = nodes.paragraph()
            heading += nodes.Text("Table ")
            heading += nodes.literal(f"[{table_name}]", f"[{table_name}]")
            shown = self.arguments[0].replace(":", ".")
            heading += nodes.Text(", checked by ")
            heading += nodes.literal(shown, shown)
            heading += nodes.Text(":")
            out.append(heading)
        rows = []
        models: set[type[BaseModel]] = set()
        for key, field, doc in config_rows(model, "", models):
            if not doc:  # with -W this fails the build: every key says what it means
                logger.warning(
                    "%s: key %r has no docstring or description",
                    self.arguments[0],
                    key,
                    location=self.get_location(),
                )
            kind = type_name(field.annotation)
            limits = constraints(field)
            rows.append(
                [
                    [nodes.literal(key, key)],
                    [nodes.Text(f"{kind}, {limits}" if limits else kind)],
                    [default_cell(default_text(field))],
                    inline(" ".join(doc.split())),
                ]
            )
        for visited in models:  # a changed docstring or default rebuilds the page
            source = inspect.getsourcefile(visited)
            if source:
                self.env.note_dependency(source)
        out.append(table(["key", "type", "default", "meaning"], rows, [22, 18, 18, 42]))
        return out


# -- the command line ---------------------------------------------------------------------------


def commands(
    parser: argparse.ArgumentParser, path: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every subcommand parser, depth first, in the order they were added."""
    yield path, parser
    # argparse has no public way to list subparsers; ``_actions`` is what its own help walks.
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) in seen:  # an alias
                    continue
                seen.add(id(sub))
                yield from commands(sub, f"{path} {name}")


class CliReference(SphinxDirective):
    """``.. toolhooks-cli:: module:build_parser``: each command's ``--help``, as argparse prints it."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        saved = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = HELP_COLUMNS
        try:
            parser = resolve(self.arguments[0])()
            for module in list(sys.modules.values()):  # the commands' modules: rebuild on change
                source = getattr(module, "__file__", None) or ""
                if module.__name__.startswith(parser.prog + ".cli") and source:
                    self.env.note_dependency(source)
            found = [(path, sub, sub.format_help()) for path, sub in commands(parser, parser.prog)]
        finally:
            if saved is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = saved
        out: list[nodes.Node] = []
        for path, _sub, help_text in found:
            anchor = nodes.make_id(f"cli {path}")
            rubric = nodes.rubric(path, "", nodes.literal(path, path), ids=[anchor])
            out.append(rubric)
            block = nodes.literal_block(help_text, help_text)
            block["language"] = "text"
            out.append(block)
        return out


# -- modules ------------------------------------------------------------------------------------


def first_paragraph(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


class ModuleTable(SphinxDirective):
    """``.. toolhooks-modules:: package``: each module and what its docstring says it owns."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        package = self.arguments[0]
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise self.error(f"{package} is not a package")
        folder = Path(next(iter(spec.submodule_search_locations)))
        rows = []
        for path in sorted(folder.iterdir()):
            if path.is_dir() and (path / "__init__.py").is_file():
                name, source = f"{package}.{path.name}", path / "__init__.py"
            elif path.suffix == ".py" and path.name != "__init__.py":
                name, source = f"{package}.{path.stem}", path
            else:
                continue
            self.env.note_dependency(str(source))
            rows.append([[nodes.literal(name, name)], inline(first_paragraph(source))])
        return [table(["module", "what it owns"], rows, [30, 70])]


# -- public names -------------------------------------------------------------------------------


def defining_module(obj: Any, name: str, *default: Any) -> Any:
    """autodoc's ``getattr`` for classes and functions: the ``__module__`` of a public name (one
    its package's ``_EXPORTS`` lists) is the module that defines it, where the source is.

    Everything else is read as autodoc reads it.
    """
    value = safe_getattr(obj, name, *default)
    if name != "__module__" or not isinstance(value, str):
        return value
    exports = getattr(sys.modules.get(value), "_EXPORTS", None)
    own = safe_getattr(obj, "__name__", None)
    if not isinstance(exports, dict) or not isinstance(own, str) or own not in exports:
        return value
    defined_in = exports[own]
    if getattr(importlib.import_module(defined_in), own, None) is not obj:
        return value  # another object of the same name: not this package's
    return defined_in


PUBLIC_PACKAGES = ("toolhooks", "toolhooks.kit")
"""The packages whose classes and functions are named after them (their ``_EXPORTS``)."""


def public_analyzers(app: Sphinx) -> None:
    """Give each public package's source analyzer the class-level findings (field docstrings,
    source order, overloads) of the modules that define its names.

    Parts of autodoc read ``cls.__module__`` directly, not through the ``getattr`` hook, and
    analyse that module: for ``toolhooks.Outcome`` the facade, which holds no class. Only keys
    inside a public class (``Outcome.approval``) are added: the package's own module-level order
    stays its own.
    """
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        analyzer = ModuleAnalyzer.for_module(package)
        analyzer.analyze()  # once: for_module caches the analyzer, analyze() keeps its findings
        for name, defined_in in module._EXPORTS.items():
            if safe_getattr(getattr(module, name), "__module__", None) != package:
                continue  # a value (a frozenset, a sentinel): documented in place
            source = ModuleAnalyzer.for_module(defined_in)
            source.analyze()
            inside = f"{name}."
            analyzer.attr_docs.update(
                (key, doc) for key, doc in source.attr_docs.items() if key[0] == name
            )
            analyzer.annotations.update(
                (key, kind) for key, kind in source.annotations.items() if key[0] == name
            )
            analyzer.tagorder.update(
                (key, order) for key, order in source.tagorder.items() if key.startswith(inside)
            )
            analyzer.overloads.update(
                (key, sigs) for key, sigs in source.overloads.items() if key.startswith(inside)
            )
            analyzer.finals.extend(key for key in source.finals if key.startswith(inside))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("toolhooks-config", ConfigTable)
    app.add_directive("toolhooks-cli", CliReference)
    app.add_directive("toolhooks-modules", ModuleTable)
    for kind in (type, types.FunctionType):
        app.add_autodoc_attrgetter(kind, defining_module)
    app.connect("builder-inited", public_analyzers)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
