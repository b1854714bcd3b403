"""Which rules a tool's calls meet (names, ``*`` patterns through the kit's name matcher as the
policy fence reads them, ``group:``, aliases), and whether a
call names anything but params (the quick look of ``RuleSet.decide``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolhooks.kit import Wildcards

from ._calls import EXEC_TOOLS, FILE_TOOLS, canonical_tool, names_no_path
from ._records import Chosen

GROUP_PREFIX: Final = "group:"


def names_nothing(tool_name: str, params: Mapping[str, Any], spec: Any, picked: Chosen) -> bool:
    """A call of a non-exec tool that names no path (no path param, no patch, not a file tool
    whose params could hold a ``file://`` URL)."""
    tool = canonical_tool(tool_name)
    if tool in EXEC_TOOLS or tool in FILE_TOOLS:
        return False
    return not picked.need_paths or names_no_path(tool, params, spec)


def selects(
    entries: Sequence[str], name: str, tool: str, groups: Mapping[str, Sequence[str]]
) -> bool:
    for entry in entries:
        if entry.startswith(GROUP_PREFIX):
            if _in_group(entry, name, tool, groups, set()):
                return True
        else:
            wanted = canonical_tool(entry)
            if "*" in wanted:
                # The kit's one name matcher, as the policy fence reads the same entry: `*` is
                # any run of characters and nothing else is special (`fs_?*` starts with `fs_?`).
                pattern = Wildcards([wanted])
                if tool in pattern or name in pattern:
                    return True
            elif wanted in (tool, name):
                return True
    return False


def _in_group(
    group: str, name: str, tool: str, groups: Mapping[str, Sequence[str]], seen: set[str]
) -> bool:
    if group in seen:
        return False
    seen.add(group)
    for member in groups.get(group, ()):
        if member.startswith(GROUP_PREFIX):
            if _in_group(member, name, tool, groups, seen):
                return True
        elif selects([member], name, tool, groups):
            return True
    return False
