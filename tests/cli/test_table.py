"""The aligned table printer: widths in terminal cells, cutting, wrapping, notes, empty tables."""

from __future__ import annotations

import pytest
from toolhooks.cli import _table
from toolhooks.cli._output import RED


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
    text = _table.render(["A", "B"], [["x" * 100, "end"]], max_width=10, width=200)
    assert text.splitlines()[2].startswith("xxxxxxx...  end")
    whole = _table.render(["A", "B"], [["x" * 100, "end"]], max_width=10, width=None)
    assert whole.splitlines()[2] == "x" * 100 + "  end"  # no limit (piped, --wide): nothing cut


def test_wrap_column_continues_on_indented_lines():
    words = " ".join(["word"] * 30)
    lines = _table.render(["K", "TEXT"], [["key", words]], wrap=1, width=40).splitlines()
    assert len(lines) > 3
    assert all(len(line) <= 40 for line in lines)
    assert all(line.startswith(" " * 5) for line in lines[3:])
    assert " ".join([lines[2].split(None, 1)[1], *(line.strip() for line in lines[3:])]) == words


def test_long_words_are_kept_whole_when_they_fit_a_line():
    ref = "sha256:" + "a" * 64
    text = f"the full result is at {ref}"
    lines = _table.render(["K", "TEXT"], [["k", text]], wrap=1, width=80).splitlines()
    assert [line.strip() for line in lines[2:]] == ["k  the full result is at", ref]
    # Wider than the whole column: split rather than run past the terminal's edge.
    lines = _table.render(["K", "TEXT"], [["k", f"see {ref}"]], wrap=1, width=40).splitlines()
    assert all(len(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines[3:]) == ref


def test_the_widest_free_text_column_is_cut_first():
    rows = [["id-1", "a" * 30, "b" * 50, "end"]]
    lines = _table.render(["ID", "A", "B", "Z"], rows, flex=[1, 2], width=70).splitlines()
    assert all(len(line) <= 70 for line in lines)
    # B is cut down to A's width first, then both share the rest of the cut.
    assert lines[2] == "id-1  " + "a" * 26 + "...  " + "b" * 25 + "...  end"
    narrow = _table.render(["ID", "A", "B", "Z"], rows, flex=[1, 2], width=40).splitlines()
    assert narrow[2] == "id-1  " + "a" * 11 + "...  " + "b" * 10 + "...  end"
    assert all(len(line) <= 40 for line in narrow)


def test_columns_that_may_go_are_dropped_in_order_and_named():
    rows = [["name", "1.0", "dist-name", "x" * 40]]
    lines = _table.render(
        ["NAME", "VER", "DIST", "TEXT"], rows, flex=[3], drop=[1, 2], width=25
    ).splitlines()
    assert lines[0].split() == ["NAME", "DIST", "TEXT"]  # DIST stays: dropping VER was enough
    assert lines[2] == "name  dist-name  xxxxx..."
    hint = " ".join(lines[3:])
    assert hint == "(not shown to fit 25 columns: VER; --wide shows every column)"
    assert all(len(line) <= 25 for line in lines)
    everything = _table.render(["NAME", "VER", "DIST", "TEXT"], rows, drop=[1, 2], width=None)
    assert everything.splitlines()[0].split() == ["NAME", "VER", "DIST", "TEXT"]


def test_status_cells_carry_colour_markers_and_others_do_not():
    text = _table.render(
        ["S", "TEXT"], [["blocked", "blocked"], ["ok", "x"]], status=[0], width=None
    )
    row = text.splitlines()[2]
    assert row.startswith(_table.paint("blocked", RED))
    assert row.endswith("  blocked")  # same word, caller's column: not painted
    assert _table.cell_width(row) == len("blocked  blocked")  # markers take no room
    assert RED not in text.splitlines()[3]


def test_pairs_and_paragraphs_wrap_to_the_width():
    text = _table.pairs([("label", "word " * 20)], width=30)
    assert all(len(line) <= 30 for line in text.splitlines())
    assert all(line.startswith(" " * 7) for line in text.splitlines()[1:])
    assert _table.paragraph("word " * 20, width=None) == "word " * 20
    assert len(_table.paragraph("word " * 20, indent="  ", width=30).splitlines()) == 4


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
