"""Modules of one concept each (issue #22): a module over 300 lines says why at its top."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 300
REASON = "Over 300 lines on purpose"
SOURCES = [ROOT / "core", ROOT / "plugins", *sorted((ROOT / "contrib").glob("*/src"))]


def modules() -> list[Path]:
    return sorted(path for source in SOURCES for path in source.rglob("*.py"))


def test_the_walk_sees_the_core_the_built_ins_and_every_contrib_package():
    seen = {path.relative_to(ROOT).parts[0] for path in modules()}
    assert seen == {"core", "plugins", "contrib"}
    assert len(SOURCES) >= 6  # core, plugins and the contrib packages' src folders


def test_a_module_over_300_lines_gives_its_reason_in_its_docstring():
    unexplained = []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LIMIT:
            continue
        docstring = " ".join((ast.get_docstring(ast.parse(text)) or "").split())
        if REASON not in docstring:
            unexplained.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not unexplained, (
        f"split these into modules of one concept each, or say '{REASON}: <why>.' at the top: "
        + ", ".join(unexplained)
    )
