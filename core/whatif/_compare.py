"""``whatif``: every recorded call of a log, its recorded decision against the one a config gives
it now, one result at a time, and the tally of them all.

The results come in the order the calls were proposed and are not kept: the caller prints or
counts each and lets it go, so a log of millions of calls is compared in bounded memory (the
tally keeps counts, and at most :data:`MAX_KEPT` examples of what could not be replayed).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config._settings import LoadedConfig
from ..events._calls import CallReader, RecordedCall
from ._decision import ChainAnswer, Change, changes, core_checks_stand, decision_of, wanted
from ._rehearsal import Rehearsal
from ._sources import Reading, events, log_groups, reading_of

MAX_KEPT = 100
"""Calls that could not be replayed, listed with their reason; beyond this only counted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """One recorded call: its decision then and now, or why it was not replayed."""

    call_id: str
    tool: str
    session_id: str | None
    params: Mapping[str, Any]
    before: ChainAnswer | None = None
    after: ChainAnswer | None = None
    changes: tuple[Change, ...] = ()
    problem: str | None = None
    """Why the call was not replayed ("cannot replay"); None when it was."""

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def by(self) -> list[str]:
        """Every plugin a change is about, sorted."""
        return sorted({plugin for change in self.changes for plugin in change.plugins})


@dataclass(frozen=True, slots=True, kw_only=True)
class Selection:
    """Which calls to compare: proposed in [since, until), in one of ``sessions``."""

    since: float | None = None
    until: float | None = None
    sessions: frozenset[str] | None = None

    def __call__(self, call: RecordedCall) -> bool:
        if self.sessions is not None and call.session_id not in self.sessions:
            return False
        if self.since is not None and (call.ts is None or call.ts < self.since):
            return False
        return not (self.until is not None and (call.ts is None or call.ts >= self.until))


@dataclass(slots=True)
class Tally:
    """Counts over every result: calls, changed, unchanged, cannot replay, by kind and plugin."""

    calls: int = 0
    changed: int = 0
    unchanged: int = 0
    cannot_replay: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    by_plugin: dict[str, Counter[str]] = field(default_factory=dict)
    by_reason: Counter[str] = field(default_factory=Counter)
    not_replayed: list[Result] = field(default_factory=list)

    def add(self, result: Result) -> None:
        self.calls += 1
        if result.problem is not None:
            self.cannot_replay += 1
            self.by_reason[result.problem] += 1
            if len(self.not_replayed) < MAX_KEPT:
                self.not_replayed.append(result)
        elif result.changes:
            self.changed += 1
            for kind in dict.fromkeys(change.kind for change in result.changes):
                self.by_kind[kind] += 1
            for change in result.changes:
                for plugin in change.plugins:
                    self.by_plugin.setdefault(plugin, Counter())[change.kind] += 1
        else:
            self.unchanged += 1


class WhatIf:
    """One comparison: the logs, the config, what to select; iterate it for the results."""

    def __init__(
        self,
        paths: Sequence[str],
        config: LoadedConfig,
        *,
        plugins: Sequence[Any] = (),
        select: Selection | None = None,
    ) -> None:
        self.groups = log_groups(paths)
        """The files of each log, oldest first (NoLog when a path has none)."""
        self.reading: Reading = reading_of(self.groups)
        self.tally = Tally()
        self._config = config
        self._plugins = plugins
        self._select = select or Selection()

    def __iter__(self) -> Iterator[Result]:
        with tempfile.TemporaryDirectory(prefix="toolhooks-whatif-") as artifacts:
            rehearsal = Rehearsal(self._config, artifacts, self._plugins)
            try:
                for call in CallReader(keep=wanted).feed(events(self.groups, self.reading)):
                    if not self._select(call):
                        continue
                    result = compare(rehearsal, call)
                    self.tally.add(result)
                    yield result
            finally:
                rehearsal.close()


def compare(rehearsal: Rehearsal, call: RecordedCall) -> Result:
    """The recorded decision of ``call`` against the one ``rehearsal``'s config gives it."""
    common: dict[str, Any] = {
        "call_id": call.call_id,
        "tool": call.tool or "",
        "session_id": call.session_id,
        "params": call.params,
    }
    if call.problem is not None or call.proposal is None:
        return Result(**common, problem=call.problem or "not in the log")
    before = decision_of(call.events)
    after, outcome = rehearsal.run(call)
    if not rehearsal.proposed():
        # The recorded proposal is not a valid call (a forged or damaged line).
        return Result(**common, problem=f"not a valid call: {outcome.reason or outcome.content}")
    after = core_checks_stand(before, after)
    return Result(**common, before=before, after=after, changes=tuple(changes(before, after)))


def whatif(
    paths: Sequence[str],
    config: LoadedConfig,
    *,
    plugins: Sequence[Any] = (),
    select: Selection | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> Tally:
    """Compare every call of the logs at ``paths`` under ``config``; the tally (``on_result``
    sees each result as it comes)."""
    run = WhatIf(paths, config, plugins=plugins, select=select)
    for result in run:
        if on_result is not None:
            on_result(result)
    return run.tally
