"""The files a patch names, read as the tools that apply patches read them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._public import public

_PATCH_FILE = (
    r"^[ \t]*(?:\*\*\* (?:Add|Update|Delete) File: |\*\*\* Move to: |\+\+\+ |--- |"
    r"rename (?:from|to) |copy (?:from|to) )(?P<path>.+?)\s*$"
)
"""A header line naming a file. Leading blanks are allowed: Codex's apply_patch trims each line
before it reads a header, so an indented ``*** Delete File: .env`` deletes ``.env``."""
_GIT_DIFF = r"^[ \t]*diff --git (?P<a>\S+) (?P<b>\S+)\s*$"
"""(Both compiled, multi-line, when a patch is first read: most processes read none.)"""


def patch_files(text: str) -> Iterator[str]:
    """The files a patch names: ``*** Add/Update/Delete File:``, ``*** Move to:``, unified
    ``---``/``+++`` headers and ``diff --git a/x b/y``, indented or not."""
    for found in re.finditer(_PATCH_FILE, text, re.M):
        path = found["path"].split("\t", 1)[0]
        if path == "/dev/null":
            continue
        yield path[2:] if path.startswith(("a/", "b/")) else path
    for found in re.finditer(_GIT_DIFF, text, re.M):
        for path in (found["a"], found["b"]):
            yield path[2:] if path.startswith(("a/", "b/")) else path


public("toolhooks.kit", patch_files)
