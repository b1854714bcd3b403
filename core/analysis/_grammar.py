"""The bash grammar (tree-sitter-bash), loaded on first use so that importing toolhooks never
pays for it."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    from tree_sitter import Node, Parser

_local = threading.local()


def _parser() -> Parser:
    # A Parser is not safe to share between threads; one per thread is cheap (the language is
    # shared).
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = tree_sitter.Parser(tree_sitter.Language(_bash_language()))
        _local.parser = parser
    return parser


def _bash_language() -> object:
    """tree-sitter-bash's language. Its package's ``__init__`` imports ``importlib.resources``
    for a highlighting query toolhooks never reads (about 15 M instructions, callgrind, in every
    process that analyses a command): its compiled binding, which holds ``language``, is loaded
    on its own, found where importing the package would find it. It is a multi-phase extension
    module, so the package, imported later by anyone, loads its own copy of the same grammar;
    it is kept out of ``sys.modules``. Any surprise (another layout, another finder) imports the
    package as before."""
    global _binding
    if _binding is None:
        _binding = _binding_alone()
    if _binding is None:
        import tree_sitter_bash

        return tree_sitter_bash.language()
    language: Callable[[], object] = _binding.language
    return language()


_binding: ModuleType | None = None


def _binding_alone() -> ModuleType | None:
    import importlib.machinery
    import importlib.util
    import sys

    if "tree_sitter_bash" in sys.modules:
        return None  # imported already: nothing to save
    try:
        package = importlib.util.find_spec("tree_sitter_bash")  # found, not run
        folders = None if package is None else package.submodule_search_locations
        if not folders:
            return None
        spec = importlib.machinery.PathFinder.find_spec("tree_sitter_bash._binding", folders)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        binding = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(binding)
    except (ImportError, OSError, ValueError):
        return None
    return binding if callable(getattr(binding, "language", None)) else None


def parse(source: bytes) -> Node:
    """The syntax tree's root node of ``source``."""
    return _parser().parse(source).root_node
