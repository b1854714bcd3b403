"""The bash grammar (tree-sitter-bash), loaded on first use so that importing toolhooks never
pays for it."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_local = threading.local()


def _parser() -> Parser:
    # A Parser is not safe to share between threads; one per thread is cheap (the language is
    # shared).
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter
        import tree_sitter_bash

        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        _local.parser = parser
    return parser


def parse(source: bytes) -> Node:
    """The syntax tree's root node of ``source``."""
    return _parser().parse(source).root_node
