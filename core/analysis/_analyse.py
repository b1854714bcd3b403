"""The entry points: a script or an argv list in, its commands out; cached per input."""

from __future__ import annotations

import posixpath
from collections import OrderedDict
from collections.abc import Sequence
from threading import Lock

from .._public import public
from ._astral import restore
from ._limits import Limit
from ._links import through_links
from ._records import Command, Script, Word
from ._scope import Scope
from ._shell import Walker, _Ctx
from ._staged import runs_a_written_file
from ._words import globs_matched

CACHE_SIZE = 2048
"""Scripts remembered per (text, cwd, home); a result that read the file system (a glob's
matches, whether a ``cd`` target exists) is not remembered, since the files may change."""

_cache: OrderedDict[tuple[str, str, str], Script] = OrderedDict()
_lock = Lock()


def _absolute(folder: str) -> str:
    folder = (
        posixpath.normpath(posixpath.join("/", folder))
        if not folder.startswith("/")
        else posixpath.normpath(folder)
    )
    return "/" + folder.lstrip("/")


def analyse_script(text: str, *, cwd: str, home: str) -> Script:
    """The simple commands of the shell script ``text`` run in ``cwd`` with ``home`` as ~."""
    key = (text, cwd, home)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    script, walker = uncached(text, cwd=cwd, home=home)
    if not walker.used_files:
        with _lock:
            _cache[key] = script
            if len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return script


def uncached(text: str, *, cwd: str, home: str) -> tuple[Script, Walker]:
    """The analysis itself, without the cache (the benchmark times this)."""
    cwd, home = _absolute(cwd), _absolute(home)
    walker = Walker(cwd=cwd, home=home)
    globs = globs_matched()
    scope = Scope(cwd=cwd, home=home, bounds=walker.bounds)
    _guarded(walker, lambda: walker.script(text, scope, _Ctx()))
    if globs_matched() != globs:
        walker.used_files = True
    commands = _commands(walker)
    if walker.opaque is None:
        walker.opaque = runs_a_written_file(commands, home)
    script = Script(
        source=text,
        commands=commands,
        opaque=None if walker.opaque is None else walker.opaque.translate(walker.astral),
    )
    return script, walker


def analyse_argv(argv: Sequence[str], *, cwd: str, home: str) -> Script:
    """The commands of an exec given as an argv list (no shell: no expansion at all);
    ``["bash", "-lc", SCRIPT]`` parses the script."""
    import shlex  # when used, not at every start (shlex compiles a pattern)

    words = tuple(Word(text=str(a), source=str(a)) for a in argv)
    source = shlex.join(str(a) for a in argv)
    if not words:
        return Script(source=source, commands=(), opaque="an empty command")
    cwd, home = _absolute(cwd), _absolute(home)
    walker = Walker(cwd=cwd, home=home)
    scope = Scope(cwd=cwd, home=home, bounds=walker.bounds)
    _guarded(
        walker,
        lambda: walker.run(
            words, assignments=(), scope=scope, ctx=_Ctx(), text=source, cwds=scope.cwds
        ),
    )
    return Script(
        source=source,
        commands=_commands(walker),
        opaque=None if walker.opaque is None else walker.opaque.translate(walker.astral),
    )


def _guarded(walker: Walker, run: object) -> None:
    """Run the walk; a bound passed or any failure of the analyser makes the script opaque
    (fail closed: a script it cannot read is never allowed by accident)."""
    try:
        run()  # type: ignore[operator]
    except Limit as limit:
        walker.opaque = str(limit)
    except RecursionError:
        walker.opaque = "the script nests too deeply to read"
    except Exception as error:
        walker.opaque = f"the analyser could not read the script ({type(error).__name__}: {error})"


def clear_cache() -> None:
    """Forget every cached analysis (tests; a changed file system)."""
    with _lock:
        _cache.clear()


def _commands(walker: Walker) -> tuple[Command, ...]:
    unique = dict.fromkeys(walker.commands) if walker.repeated else walker.commands
    restored = tuple(restore(c, walker.astral) for c in unique)
    return through_links(restored, walker.links, walker.home)


public("toolhooks.kit", analyse_argv, analyse_script, clear_cache)
