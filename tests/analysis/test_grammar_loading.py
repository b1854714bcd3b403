"""The bash grammar is loaded from tree-sitter-bash's compiled binding alone (its package's
``__init__`` imports ``importlib.resources`` for nothing toolhooks reads), and from the package
whenever that cannot be done."""

from __future__ import annotations

import subprocess
import sys

import pytest
from toolhooks.analysis import _grammar


def test_a_process_that_analyses_a_command_does_not_import_the_package() -> None:
    probe = (
        "import sys\n"
        "from toolhooks.kit import analyse_script\n"
        "script = analyse_script('rm -rf /tmp/x', cwd='/w', home='/h')\n"
        "assert [c.program for c in script.commands] == ['rm'], script\n"
        "print('tree_sitter_bash' in sys.modules, 'importlib.resources' in sys.modules)\n"
        "import tree_sitter, tree_sitter_bash\n"
        "from toolhooks.analysis._grammar import _bash_language\n"
        "mine, theirs = tree_sitter.Language(_bash_language()), "
        "tree_sitter.Language(tree_sitter_bash.language())\n"
        "print(mine == theirs)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False", "False", "True"]


def test_the_package_is_imported_when_the_binding_cannot_be_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    import tree_sitter

    monkeypatch.setattr(_grammar, "_binding", None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, package=None: None)
    assert _grammar._binding_alone() is None
    language = tree_sitter.Language(_grammar._bash_language())
    parser = tree_sitter.Parser(language)
    assert parser.parse(b"git status").root_node.type == "program"
