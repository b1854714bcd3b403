"""The program tables (core/analysis/_programs.py) are the one home of each program's facts:
every list other code keeps is derived from them, and every fact a table states is one its own
getopt reading can see."""

from __future__ import annotations

import pytest
from toolhooks.analysis import patch_files, value_options
from toolhooks.analysis._hidden import _COMMAND_OPTIONS
from toolhooks.analysis._hosts import _NETWORK
from toolhooks.analysis._programs import PROGRAMS, Program, programs_with
from toolhooks.analysis._shell import _ordinary
from toolhooks.plugins.rules._argv import GIT_VALUE_OPTIONS


def _readable(table: Program, option: str) -> bool:
    """Whether ``option`` is one the table's getopt reading gives a value to."""
    if option.startswith("--"):
        return option[2:] in table.options.long_values
    return len(option) == 2 and option[1] in table.options.short_values


VALUED = ("reads", "hosts", "folders", "from_file", "program_file")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_option_a_table_names_takes_a_value_in_its_own_reading(name):
    table = PROGRAMS[name]
    for fact in VALUED:
        for option in getattr(table, fact):
            assert _readable(table, option), f"{name}: {fact} names {option}, read as a flag"


def test_the_lists_other_code_keeps_are_the_tables():
    # the walker looks past the record of every program whose table says more than its words
    looked_at = {n for n in PROGRAMS if not _ordinary(n)}
    for fact in (
        "runs", "hosts", "folders", "from_file", "program_file", "stdin_program", "deletes",
    ):  # fmt: skip
        assert programs_with(fact) <= looked_at, fact
    # the command readers are the tables' runs, every one of them
    assert set(_COMMAND_OPTIONS) == programs_with("runs")
    for name in programs_with("runs"):
        options = _COMMAND_OPTIONS[name]
        named = {f"-{k}" for k in options.short} | set(options.long) | set(options.words)
        assert named == set(PROGRAMS[name].runs), name
    # every program with host options is read for hosts
    assert programs_with("hosts") <= _NETWORK
    # the rules' git prefix reader steps over the options the analysis reads for git -C
    assert value_options("git") == GIT_VALUE_OPTIONS
    assert {"-C", "-c", "--git-dir", "--work-tree", "--config-env"} <= GIT_VALUE_OPTIONS
    assert "--exec-path" not in GIT_VALUE_OPTIONS  # git --exec-path (no =) prints and exits


def test_a_program_not_in_a_table_has_no_value_options():
    assert value_options("frobnicate") == frozenset()


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n  *** Delete File: .env\n*** End Patch",
        "*** Begin Patch\n\t*** Update File: src/a.py\n \t*** Move to: .env\n@@\n-a\n+b\n",
        "  --- a/x\n  +++ b/.env\n",
        "  diff --git a/x b/.env\n",
    ],
)
def test_a_patch_header_with_leading_blanks_names_its_file(patch):
    # Codex's apply_patch trims each line before it reads a header
    assert ".env" in set(patch_files(patch))
