"""The ``hookimpl`` marker: pluggy's, plus the options toolhooks adds (priority, tools, timeout)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

import pluggy

from .._public import public
from ..records._plain import Record
from ..spec import PROJECT

F = TypeVar("F", bound=Callable[..., Any])
OPTIONS_ATTR = "toolhooks_options"
_pluggy_marker = pluggy.HookimplMarker(PROJECT)


class ImplOptions(Record):
    """What ``hookimpl`` was given, kept on the decorated function."""

    __slots__ = ("priority", "timeout", "tools")

    priority: int | None
    tools: tuple[str, ...] | None
    timeout: float | None

    def __init__(
        self,
        *,
        priority: int | None = None,
        tools: tuple[str, ...] | None = None,
        timeout: float | None = None,
    ) -> None:
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "timeout", timeout)


@overload
def hookimpl(function: F, /) -> F: ...
@overload
def hookimpl(
    *,
    priority: int | None = None,
    tools: Iterable[str] | None = None,
    timeout: float | None = None,
    specname: str | None = None,
) -> Callable[[F], F]: ...


def hookimpl(
    function: F | None = None,
    /,
    *,
    priority: int | None = None,
    tools: Iterable[str] | None = None,
    timeout: float | None = None,
    specname: str | None = None,
) -> F | Callable[[F], F]:
    """Mark a function or method as a toolhooks hook implementation.

    :param priority: Order among handlers of one hook; higher runs first (default: the plugin's
        ``priority`` attribute, else 0). ``[plugins.<name>] priority`` in config overrides it.
    :param tools: Tool names this handler runs for; ``*`` matches any run of characters.
    :param timeout: Seconds before the handler counts as failed. Without it an ``async def``
        handler gets 15 s and a ``def`` handler runs inline, untimed.
    :param specname: Implement the hook of this name (lets one plugin implement a hook twice).
    """
    if priority is not None and (type(priority) is not int):
        raise TypeError("hookimpl(priority=) must be an int")
    if timeout is not None and not (
        isinstance(timeout, (int, float))
        and not isinstance(timeout, bool)
        and 0 < timeout < float("inf")
    ):
        raise ValueError("hookimpl(timeout=) must be a positive, finite number of seconds")
    patterns: tuple[str, ...] | None = None
    if tools is not None:
        if isinstance(tools, str):
            tools = [tools]
        patterns = tuple(tools)
        if not all(isinstance(p, str) and p for p in patterns):
            raise ValueError("hookimpl(tools=) must be a list of non-empty tool name patterns")
    options = ImplOptions(
        priority=priority, tools=patterns, timeout=None if timeout is None else float(timeout)
    )

    def mark(func: F) -> F:
        setattr(func, OPTIONS_ATTR, options)
        marked: F = _pluggy_marker(func, specname=specname)
        return marked

    if function is not None:
        return mark(function)
    return mark


public("toolhooks", hookimpl)
