"""The ``[tools]`` defaults as plain records: what the policy runs on when the table is absent,
without building the pydantic ``PolicyConfig`` and its three nested models (whose field defaults
are read from here, so the two cannot drift apart)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._config import NarrowingRules, ProfileConfig


def toml_key(key: str) -> str:
    """``key`` as it is written in a dotted TOML path: bare when it can be, else quoted."""
    if re.match(r"[A-Za-z0-9_-]+\Z", key):  # compiled at first use, not at every start
        return key
    return json.dumps(key, ensure_ascii=False)


class ElevatedDefaults:
    """Every key of ``ElevatedConfig`` with its default (documented there)."""

    __slots__ = ()

    enabled: bool = False
    allow_from: tuple[str, ...] = ()


class PolicyDefaults:
    """Every key of ``PolicyConfig`` with its default (documented there): the ``full`` profile.

    Plain read-only classes, not dataclasses: a dataclass's generated methods cost about as much
    to make as a pydantic model (callgrind)."""

    __slots__ = ()

    profile: str = "full"
    allow: tuple[str, ...] = ()
    also_allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    groups: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    profiles: Mapping[str, ProfileConfig] = MappingProxyType({})
    by_agent: Mapping[str, NarrowingRules] = MappingProxyType({})
    by_sender: Mapping[str, NarrowingRules] = MappingProxyType({})
    elevated: ElevatedDefaults = ElevatedDefaults()

    def group_table(self) -> dict[str, list[str]]:
        """No user groups (``PolicyConfig.group_table``)."""
        return {}

    def entry_lists(self) -> Iterator[tuple[str, list[str]]]:
        """The three top-level lists, empty (``PolicyConfig.entry_lists``)."""
        yield "tools.allow", list(self.allow)
        yield "tools.also_allow", list(self.also_allow)
        yield "tools.deny", list(self.deny)


DEFAULTS = PolicyDefaults()
