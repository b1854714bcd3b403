"""A rule's conditions compiled into matchers over a :class:`Subject`, in three values.

``True`` the condition holds, ``False`` it does not, ``None`` it cannot be known: an unknown word
(``$X``, ``$(...)``) could decide it. A rule holds when every condition given holds; when none
fails but one is unknown, the subject gets the ``opaque`` decision instead of the rule's
(DESIGN.md, "Decided edge cases").

The positive conditions hold when any item (arg, path, host, list element) matches; the same
conditions in ``unless`` hold only when every item matches, and there is one.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any, Final

from ._argv import NO, Found, Parsed, Prefix, Tri, both, parse_words
from ._calls import Subject
from ._globs import Matcher, PathGlobs, host_glob, path_globs, word_glob
from ._tables import ConditionsTable

Check = Callable[[Subject, Mapping[str, Any], Any], Found]
"""One condition: (subject, params, the kinds to collect or the items to read over) -> Found."""


class Compiled:
    """One conditions table compiled: ``holds`` (a rule's) and ``every`` (its unless table's)."""

    def __init__(
        self, conditions: ConditionsTable, *, project: str, home: str, fold_case: bool = False
    ) -> None:
        """``fold_case``: paths match in either case (a rule that denies, asks or labels: on a
        case-insensitive file system ``.ENV`` is ``.env``); never for an unless table or an
        allow rule, which matching more would loosen."""
        self.prefix = None if conditions.command is None else Prefix(conditions.command)
        self.flags = None if conditions.flags is None else frozenset(conditions.flags)
        self.long_flags = tuple(f for f in conditions.flags or () if f.startswith("--"))
        self.args = None if conditions.args is None else word_glob(conditions.args)
        self.paths = (
            None
            if conditions.paths is None
            else path_globs(conditions.paths, project=project, home=home, fold=fold_case)
        )
        self.hosts = None if conditions.hosts is None else host_glob(conditions.hosts)
        self.params: tuple[tuple[tuple[str, ...], Matcher], ...] | None = (
            None
            if conditions.params is None
            else tuple(
                (tuple(name.split(".")), word_glob([g] if isinstance(g, str) else g))
                for name, g in conditions.params.items()
            )
        )
        self.needs_command = any(c is not None for c in (self.prefix, self.flags, self.args))
        self.needs_paths = self.paths is not None
        self.needs_hosts = self.hosts is not None
        self.params_only = self.params is not None and not (
            self.needs_command or self.needs_paths or self.needs_hosts
        )
        self._any = self._checks(every=False)
        self._every = self._checks(every=True)

    # -- the rule's own conditions: any item ------------------------------------------------

    def holds(
        self, subject: Subject, params: Mapping[str, Any], collect: frozenset[str] = frozenset()
    ) -> tuple[Tri, list[Found]]:
        """All conditions given hold (True), one fails (False), or it cannot be known (None);
        with what each condition matched (every item, for the kinds in ``collect``)."""
        holds: Tri = True
        found: list[Found] = []
        for check in self._any:
            one = check(subject, params, collect)
            if one.value is False:
                return False, found
            holds = both(holds, one.value)
            found.append(one)
        return holds, found

    def every(
        self, subject: Subject, params: Mapping[str, Any], within: Sequence[Found] = ()
    ) -> tuple[Tri, Found | None]:
        """The unless table: all conditions hold, each over every item (of a kind the rule's
        own conditions matched: over the items in ``within``); with the first item that kept
        it from holding."""
        holds: Tri = True
        missed: Found | None = None
        narrowed = {
            "arg" if one.kind == "command" else one.kind: one.items for one in within if one.items
        }
        for check in self._every:
            one = check(subject, params, narrowed)
            if one.value is False:
                return False, one
            if one.value is None and missed is None:
                missed = one
            holds = both(holds, one.value)
        return holds, missed

    def _checks(self, every: bool) -> list[Check]:
        checks: list[Check] = []
        if self.needs_command:
            checks.append(lambda s, p, n: self._command(s, every, n))
        if self.paths is not None:
            paths = self.paths
            checks.append(lambda s, p, n: _items(s.paths, paths, s.unknown, every, "path", n))
        if self.hosts is not None:
            hosts = self.hosts
            checks.append(lambda s, p, n: _items(s.hosts, hosts, s.unknown, every, "host", n))
        if self.params is not None:
            checks.append(lambda s, p, _: self._params(p, every))
        return checks

    def _command(
        self,
        subject: Subject,
        every: bool,
        narrowed: Container[str] | Mapping[str, tuple[str, ...]],
    ) -> Found:
        command = subject.command
        if command is None:
            return NO
        argv = command.argv
        start = 1
        holds: Tri = True
        if self.prefix is not None:
            holds, start = self.prefix.match(command.program, argv)
            if holds is False:
                return Found(value=False, item=subject.shown, kind="command")
        parsed = parse_words(argv, max(start, 1), command.cwd)
        if self.flags is not None:
            holds = both(holds, self._flags(parsed, every))
        matching: tuple[str, ...] = ()
        if self.args is not None:
            if every:
                # Over the args that made the rule's own `args` hold, when it has one.
                within = narrowed.get("arg") if isinstance(narrowed, Mapping) else None
                holds = both(holds, _args(parsed, self.args, every, within))
            elif "arg" in narrowed and holds is not False:
                matching = tuple(a for a in parsed.args if self.args(a))
                holds = both(holds, True if matching else None if parsed.unknown_arg else False)
            else:
                holds = both(holds, _args(parsed, self.args, every, None))
        return Found(value=holds, item=subject.shown, kind="command", items=matching)

    def _flags(self, parsed: Parsed, every: bool) -> Tri:
        wanted = self.flags
        assert wanted is not None
        if every:
            return _every_flag(parsed, wanted, self.long_flags)
        present = set(parsed.flags)
        for given in parsed.long_flags:
            # An unambiguous prefix of a long option counts as it (`--recur`); a prefix that
            # two listed options share is one of them either way.
            present.update(f for f in self.long_flags if f.startswith(given))
        if present & wanted:
            return True
        return None if parsed.unknown_option else False

    def params_hold(self, params: Mapping[str, Any]) -> bool:
        """The ``params`` condition alone holds for ``params`` (the quick look of a call that
        names nothing else)."""
        if self.params is None:
            return False
        for path, matcher in self.params:
            texts = param_texts(params, path)
            if texts is None:
                return False
            for text in texts:
                if matcher(text):
                    break
            else:
                return False
        return True

    def _params(self, params: Mapping[str, Any], every: bool) -> Found:
        assert self.params is not None
        last = NO
        for path, matcher in self.params:
            name = ".".join(path)
            texts = param_texts(params, path)
            if texts is None:
                return Found(value=False, kind="param")
            hits = [t for t in texts if matcher(t)]
            holds = len(hits) == len(texts) if every else bool(hits)
            if hits and holds:
                last = Found(value=True, item=f"{name}={hits[0]}", kind="param")
            else:
                missed = next((t for t in texts if not matcher(t)), None)
                return Found(value=False, item=None if missed is None else f"{name}={missed}",
                             kind="param")  # fmt: skip
        return last


def param_texts(params: Mapping[str, Any], path: Sequence[str]) -> list[str] | None:
    """The values at a dotted param name as text, None when there is none. A list on the way
    is every one of its elements (``to.iban`` is each recipient's iban, at any depth of
    lists); a list at the end is its elements."""
    if len(path) == 1:  # the usual name: one lookup, no list of nodes
        node = params.get(path[0], _MISSING)
        if node is _MISSING:
            return None
        if isinstance(node, (list, tuple)):
            return [_text(value) for value in _flat([node])]
        return [_text(node)]
    nodes: list[Any] = [params]
    for part in path:
        found: list[Any] = []
        for node in _flat(nodes):
            # FrozenDict is a dict: the ABC check only for other mappings
            if isinstance(node, (dict, Mapping)) and part in node:
                found.append(node[part])
        if not found:
            return None
        nodes = found
    return [_text(value) for value in _flat(nodes)]


_MISSING: Final = object()


def _flat(nodes: list[Any]) -> list[Any]:
    """``nodes`` with the elements of lists (at any depth) in place of the lists."""
    if not any(isinstance(node, (list, tuple)) for node in nodes):
        return nodes
    out: list[Any] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(reversed(node))
        else:
            out.append(node)
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    import json

    return json.dumps(value, sort_keys=True, default=str)


def _every_flag(parsed: Parsed, wanted: frozenset[str], long_flags: tuple[str, ...]) -> Tri:
    """unless.flags: each option word is listed: a long one (or what its prefix stands for), a
    word option as a whole (-delete), or a cluster letter by letter (-rf: -r and -f)."""
    words = [[f for f in long_flags if f.startswith(g)] or [g] for g in parsed.long_flags]
    words += [[w] if w in wanted else [f"-{c}" for c in w[1:]] for w in parsed.short_words]
    if not words:
        return None if parsed.unknown_option else False
    if not all(name in wanted for word in words for name in word):
        return False
    return None if parsed.unknown_option else True


def _args(parsed: Parsed, matcher: Matcher, every: bool, within: tuple[str, ...] | None) -> Tri:
    if every:
        args = parsed.args if within is None else within
        if not args:
            return None if parsed.unknown_arg else False
        if not all(matcher(a) for a in args):
            return False
        return None if parsed.unknown_arg else True
    if any(matcher(a) for a in parsed.args):
        return True
    return None if parsed.unknown_arg else False


def _items(
    items: Sequence[str],
    matcher: Callable[[str], bool],
    unknown: bool,
    every: bool,
    kind: str,
    narrowed: Container[str] | Mapping[str, tuple[str, ...]],
) -> Found:
    """Paths or hosts: any item matches (a rule's condition; every matching one listed when
    ``kind`` is in ``narrowed``), or every item does (an unless table's; over the items the
    rule's own condition matched when ``narrowed`` maps ``kind`` to them)."""
    if every:
        if isinstance(narrowed, Mapping) and kind in narrowed:
            # Only the items that made the rule hold: `grep KEY .env.example` is excepted by
            # `.env.example` although KEY is a path too; an unknown word is among those items.
            items = narrowed[kind]
        missed = next((item for item in items if not matcher(item)), None)
        if missed is not None:
            return Found(value=False, item=missed, kind=kind)
        if not items:
            return Found(value=None if unknown else False, kind=kind)
        return Found(value=None if unknown else True, kind=kind)
    if kind in narrowed:
        if isinstance(matcher, PathGlobs):
            matching = tuple(matcher.matching(items))
        else:
            matching = tuple([item for item in items if matcher(item)])  # no generator
        if matching:
            return Found(value=True, item=matching[0], kind=kind, items=matching)
        return Found(value=None if unknown else False, kind=kind)
    hit = next((item for item in items if matcher(item)), None)
    if hit is not None:
        return Found(value=True, item=hit, kind=kind)
    return Found(value=None if unknown else False, kind=kind)
