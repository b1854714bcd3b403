"""Which toolhooks a plugin was written for: its distribution's dependency range on toolhooks.

A plugin declares the hook API it targets the way any Python package declares what it needs:
``Requires-Dist: toolhooks>=1.2,<2``. At load, before its code is imported, a plugin whose range
leaves out every release of the running toolhooks' major version is refused with a
PluginLoadError naming both (pip checks this at install, but not after ``--no-deps``, a
downgrade of toolhooks, or a copied site-packages). Only the major version is compared: a range
that admits some release of the running major loads, and pip's own check covers the rest.

A distribution with no toolhooks requirement loads (it may predate the convention, or be an
application that registers its own hooks). Environment markers are not evaluated: any one of the
toolhooks requirements admitting the major is enough. The range is read here, without the
``packaging`` library, which toolhooks does not depend on: PEP 440 operators over release
numbers; pre-, post- and dev-release suffixes do not move a bound across a major version.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from ..records._errors import PluginLoadError

_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?"
    r"\s*(?P<rest>[^;]*)(?:;.*)?$"
)
_CLAUSE = re.compile(r"^\s*(~=|===|==|!=|<=|>=|<|>)\s*(\S+?)\s*$")
_RELEASE = re.compile(r"^v?(?:\d+!)?(\d+(?:\.\d+)*)(\.\*)?")

Release = tuple[int, ...]
Bound = tuple[Release, bool]  # a release and whether it is included


def check(
    requires: Iterable[str],
    label: str,
    from_dist: str,
    distribution: str | None,
    running: str | None = None,
) -> None:
    """PluginLoadError when the distribution's toolhooks range (in its Requires-Dist,
    ``requires``) leaves out the running major (``running``: the version found by the same
    entry-point scan, else read from toolhooks' own metadata)."""
    ranges = toolhooks_ranges(requires)
    if not ranges:
        return
    running = running or running_version()
    major = _release(running)[0] if _RELEASE.match(running) else None
    if major is None:
        return  # a toolhooks built from source with no version: nothing to compare against
    for spec in ranges:
        try:
            if admits_major(spec, major):
                return
        except ValueError as exc:
            raise PluginLoadError(
                f"plugin entry point '{label}' from {from_dist}: its requirement "
                f"'toolhooks{spec}' cannot be read ({exc})",
                entry_point=label,
                distribution=distribution,
            ) from None
    shown = " or ".join(f"'toolhooks{spec}'" for spec in ranges)
    raise PluginLoadError(
        f"plugin entry point '{label}' from {from_dist} is written for {shown} (its "
        f"Requires-Dist), but toolhooks {running} is installed: that range leaves out every "
        f"toolhooks {major}.x; install a release of it made for toolhooks {major}.x, or a "
        "toolhooks its range admits",
        entry_point=label,
        distribution=distribution,
    )


@functools.cache
def running_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("toolhooks")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree on sys.path
        return "unknown"


def toolhooks_ranges(requires: Iterable[str]) -> list[str]:
    """The version part of every requirement on toolhooks (``>=1,<2``; ``""`` for any)."""
    found = []
    for requirement in requires:
        matched = _REQUIREMENT.match(requirement)
        if matched is None or _normalise(matched["name"]) != "toolhooks":
            continue
        rest = matched["rest"].strip()
        if rest.startswith("@"):  # a direct URL: no range
            rest = ""
        found.append(rest.removeprefix("(").removesuffix(")").strip())
    return found


def admits_major(spec: str, major: int) -> bool:
    """Whether some release ``major.*`` satisfies every clause of ``spec``; ValueError if unread."""
    low: Bound = ((major,), True)
    high: Bound = ((major + 1,), False)
    for clause in filter(None, (part.strip() for part in spec.split(","))):
        matched = _CLAUSE.match(clause)
        if matched is None or not _RELEASE.match(matched[2]):
            raise ValueError(f"not a version clause: {clause!r}")
        operator, text = matched[1], matched[2].split("+", 1)[0]
        release, wildcard = _release(text), text.endswith(".*")
        if wildcard and operator not in ("==", "!="):
            raise ValueError(f"a wildcard only follows == or !=: {clause!r}")
        if operator == "!=":
            if wildcard and _covers(release, low, high):
                return False
            continue
        if wildcard:
            low, high = _higher(low, (release, True)), _lower(high, (_next(release), False))
        elif operator == ">=":
            low = _higher(low, (release, True))
        elif operator == ">":
            low = _higher(low, (release, False))
        elif operator == "<=":
            high = _lower(high, (release, True))
        elif operator == "<":
            high = _lower(high, (release, False))
        elif operator in ("==", "==="):
            low, high = _higher(low, (release, True)), _lower(high, (release, True))
        else:  # ~=X.Y: >=X.Y, <X+1 (and ~=X.Y.Z: <X.Y+1)
            if len(release) < 2:
                raise ValueError(f"~= needs two release numbers: {clause!r}")
            low = _higher(low, (release, True))
            high = _lower(high, (_next(release[:-1]), False))
    (low_release, low_in), (high_release, high_in) = low, high
    low_key, high_key = _trimmed(low_release), _trimmed(high_release)
    return low_key < high_key or (low_key == high_key and low_in and high_in)


def _release(text: str) -> Release:
    matched = _RELEASE.match(text)
    assert matched is not None
    return tuple(int(part) for part in matched[1].split("."))


def _next(release: Release) -> Release:
    return (*release[:-1], release[-1] + 1)


def _trimmed(release: Release) -> Release:
    """1.0.0 and 1 are the same release."""
    trimmed = list(release)
    while len(trimmed) > 1 and trimmed[-1] == 0:
        trimmed.pop()
    return tuple(trimmed)


def _higher(current: Bound, new: Bound) -> Bound:
    """The tighter of two lower bounds."""
    a, b = _trimmed(current[0]), _trimmed(new[0])
    if a != b:
        return current if a > b else new
    return current if not current[1] else new


def _lower(current: Bound, new: Bound) -> Bound:
    """The tighter of two upper bounds."""
    a, b = _trimmed(current[0]), _trimmed(new[0])
    if a != b:
        return current if a < b else new
    return current if not current[1] else new


def _covers(release: Release, low: Bound, high: Bound) -> bool:
    """Whether ``release.*`` holds every version between ``low`` and ``high``."""
    start, end = _trimmed(release), _trimmed(_next(release))
    top = _trimmed(high[0])
    return start <= _trimmed(low[0]) and (top < end or (top == end and not high[1]))


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
