"""The aligned table printer: widths in terminal cells, cutting, wrapping, notes, empty tables."""

from __future__ import annotations

import pytest
from toolhooks.cli import _table


def test_columns_align_and_last_column_is_not_padded():
    text = _table.render(["NAME", "N"], [["a", 1], ["longer name", 22]], align=["left", "right"])
    lines = text.splitlines()
    assert lines == ["NAME          N", "-----------  --", "a             1", "longer name  22"]
    assert all(line == line.rstrip() for line in lines)


def test_wide_and_combining_characters_count_as_cells():
    assert _table.cell_width("日本") == 4
    assert _table.cell_width("e\u0301") == 1
    assert _table.cell_width("a\u200bb") == 2
    text = _table.render(["TOOL", "X"], [["日本語", "y"], ["abc", "z"]])
    _, _, wide, narrow = text.splitlines()
    assert wide.index("y") == narrow.index("z") - 3  # 3 wide characters take 6 cells, not 3
    assert _table.cell_width(wide[: wide.index("y")]) == _table.cell_width(
        narrow[: narrow.index("z")]
    )


def test_control_characters_never_reach_the_terminal():
    text = _table.render(["A"], [["line one\nline two\x1b[31m"]])
    assert "\x1b" not in text and "\n" not in text.splitlines()[2]
    assert "line one / line two\\x1b[31m" in text


def test_empty_table_and_none_cells():
    assert _table.render(["A", "B"], [], empty="(nothing)").splitlines()[2] == "(nothing)"
    assert _table.render(["A", "B"], [[None, "x"]]).splitlines()[2] == "   x"


def test_cut_with_ellipsis():
    assert _table.cut("abcdefghij", 6) == "abc..."
    assert _table.cut("日本語日本語", 7) == "日本..."
    assert _table.cut("short", 10) == "short"
    text = _table.render(["A", "B"], [["x" * 100, "end"]], max_width=10)
    assert text.splitlines()[2].startswith("xxxxxxx...  end")


def test_wrap_column_continues_on_indented_lines():
    words = " ".join(["word"] * 30)
    lines = _table.render(["K", "TEXT"], [["key", words]], wrap=1, width=40).splitlines()
    assert len(lines) > 3
    assert all(len(line) <= 40 for line in lines)
    assert all(line.startswith(" " * 5) for line in lines[3:])
    assert " ".join([lines[2].split(None, 1)[1], *(line.strip() for line in lines[3:])]) == words


def test_long_words_are_not_broken():
    ref = "sha256:" + "a" * 64
    lines = _table.render(["K", "TEXT"], [["k", f"see {ref}"]], wrap=1, width=40).splitlines()
    assert any(line.strip() == ref for line in lines)


def test_notes_go_under_their_row():
    lines = _table.render(
        ["#", "CALL"], [[1, "read"], [2, "exec"]], notes=["first note", None], width=80
    ).splitlines()
    assert lines[2].strip() == "1  read"
    assert lines[3] == "     first note"
    assert lines[4].strip() == "2  exec"


def test_row_length_is_checked():
    with pytest.raises(ValueError, match="2 cells"):
        _table.render(["A"], [["x", "y"]])


def test_pairs():
    assert _table.pairs([("a", 1), ("longer", "v")]).splitlines() == ["a       1", "longer  v"]
