"""Programs that read the URLs, hosts or options they use from a file (``curl -K``, ``wget -i``,
``ssh -F``): what they reach is then unknown. The options are their tables' ``from_file``."""

from __future__ import annotations

from ._programs import PROGRAMS, WGETRC, every_option
from ._records import Word

_WGETRC_FILES = frozenset({"inputfile", "input", "config", "baseurl", "base"})
"""wgetrc commands (``wget -e KEY=VALUE``) that name more URLs or hosts in a file."""


def options_from_file(program: str, argv: tuple[Word, ...]) -> str | None:
    """The option by which ``program`` reads its URLs, hosts or options from a file (``curl
    -K``, ``wget -i``, ``ssh -F``): what it reaches is then unknown; None when it does not."""
    table = PROGRAMS.get(program)
    if table is None or not table.from_file:
        return None
    for option, value in every_option(table, argv):
        if option not in table.from_file:
            continue
        if table.hosts.get(option) == WGETRC:
            # wget -e: a wgetrc command; only those that name more URLs or hosts read a file
            setting = (value.text or "") if value is not None else ""
            key = setting.split("=", 1)[0].strip().lower().replace("_", "")
            if key not in _WGETRC_FILES:
                continue
        return f"{program} {option}"
    return None
