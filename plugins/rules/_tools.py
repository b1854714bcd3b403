"""Which rules a tool's calls meet (names, ``*`` patterns through the kit's name matcher as the
policy fence reads them, ``group:``, ``tag:``, aliases), and whether a
call names anything but params (the quick look of ``RuleSet.decide``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolhooks.kit import Wildcards

from ._calls import EXEC_TOOLS, FILE_TOOLS, canonical_tool, names_no_path
from ._records import Chosen

GROUP_PREFIX: Final = "group:"
TAG_PREFIX: Final = "tag:"
NO_TAGS: Final[frozenset[str]] = frozenset()


def tags_of(spec: Any) -> frozenset[str]:
    """The tags of a call's ToolSpec (none for a call the runtime has no spec for)."""
    tags = getattr(spec, "tags", None)
    return tags if isinstance(tags, frozenset) else NO_TAGS


def has_tag(tag: str, tool: str, tags: frozenset[str]) -> bool:
    """Whether a tool carries ``tag`` as the policy fence reads it: its ToolSpec's tags, and
    for ``side_effect`` also the tools that count as such by name (``exec``, ``write``, ...)."""
    if tag in tags:
        return True
    if tag == "side_effect":
        from toolhooks.plugins.policy import SIDE_EFFECT_TOOLS

        return tool in SIDE_EFFECT_TOOLS
    return False


def names_nothing(tool_name: str, params: Mapping[str, Any], spec: Any, picked: Chosen) -> bool:
    """A call of a non-exec tool that names no path (no path param, no patch, not a file tool
    whose params could hold a ``file://`` URL)."""
    tool = canonical_tool(tool_name)
    if tool in EXEC_TOOLS or tool in FILE_TOOLS:
        return False
    return not picked.need_paths or names_no_path(tool, params, spec)


def selects(
    entries: Sequence[str],
    name: str,
    tool: str,
    groups: Mapping[str, Sequence[str]],
    tags: frozenset[str] = NO_TAGS,
) -> bool:
    for entry in entries:
        if entry.startswith(GROUP_PREFIX):
            if _in_group(entry, name, tool, groups, set(), tags):
                return True
        elif entry.startswith(TAG_PREFIX):
            if has_tag(entry.removeprefix(TAG_PREFIX), tool, tags):
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
    group: str,
    name: str,
    tool: str,
    groups: Mapping[str, Sequence[str]],
    seen: set[str],
    tags: frozenset[str],
) -> bool:
    if group in seen:
        return False
    seen.add(group)
    for member in groups.get(group, ()):
        if member.startswith(GROUP_PREFIX):
            if _in_group(member, name, tool, groups, seen, tags):
                return True
        elif selects([member], name, tool, groups, tags):
            return True
    return False


def uses_tags(entries: Sequence[str], groups: Mapping[str, Sequence[str]]) -> bool:
    """Whether a ``tools`` list selects by tag anywhere (itself or through its groups): only
    then does which rules cover a tool depend on more than its name."""
    pending = list(entries)
    seen: set[str] = set()
    while pending:
        entry = pending.pop()
        if entry.startswith(TAG_PREFIX):
            return True
        if entry.startswith(GROUP_PREFIX) and entry not in seen:
            seen.add(entry)
            pending.extend(groups.get(entry, ()))
    return False
