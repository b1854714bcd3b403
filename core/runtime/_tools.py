"""The Runtime's tool methods: registering tools (a function or a bare ``ToolSpec``), listing
them, and which of them a caller may see. A mixin so that ``_runtime`` stays about plugins and
calls; ``Runtime`` inherits it."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, overload

from ..pipeline._driver import BackgroundLoop, drive_sync
from ..pipeline._tools import Tool, build_tool
from ..pipeline._visibility import visible
from ..records._models import Origin, ToolSpec
from ..records._sender import Sender
from ..registry._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])


class RuntimeTools:
    """The tools a runtime runs; mixed into :class:`Runtime`."""

    _tools: dict[str, Tool]
    _registry: Registry
    _background: BackgroundLoop
    _first_use: Callable[[], None]

    def add_tool(
        self,
        function: Callable[..., Any] | ToolSpec,
        name: str | None = None,
        tags: Iterable[str] = (),
        description: str | None = None,
    ) -> ToolSpec:
        """Register a tool; its JSON Schema and validator come from the function's signature.

        A bare :class:`ToolSpec` registers a tool that is executed by ``call(..., execute=)``.
        """
        if isinstance(function, ToolSpec):
            spec = ToolSpec(
                name or function.name,
                description or function.description,
                function.parameters,
                function.tags | frozenset(tags),
            )
            tool = Tool(_no_function(spec.name), spec, None)
        else:
            tool = build_tool(function, name, tags, description)
        # One assignment: a call running on another thread sees the old tool or the new one,
        # never a dict that is being refilled (calls read this dict without a lock).
        previous = self._tools.get(tool.spec.name)
        self._tools[tool.spec.name] = tool
        try:
            self._tools_changed()
        except BaseException:
            # A plugin refused the tool (a policy that no longer validates): not registered.
            if previous is None:
                self._tools.pop(tool.spec.name, None)
            else:
                self._tools[tool.spec.name] = previous
            raise
        return tool.spec

    def _tools_changed(self) -> None:
        """Plugins with ``attach_runtime(runtime)`` see every change of the runtime: a tool
        registered later too (a plugin that checks its config against the tools raises here)."""
        for record in list(self._registry.records.values()):
            attach = getattr(record.plugin, "attach_runtime", None)
            if callable(attach) and not inspect.ismodule(record.plugin):
                attach(self)

    @overload
    def tool(self, function: F, /) -> F: ...
    @overload
    def tool(
        self,
        function: None = None,
        /,
        *,
        name: str | None = None,
        tags: Iterable[str] = (),
        description: str | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        function: F | None = None,
        /,
        *,
        name: str | None = None,
        tags: Iterable[str] = (),
        description: str | None = None,
    ) -> F | Callable[[F], F]:
        """Decorator form of :meth:`add_tool`: ``@rt.tool`` or ``@rt.tool(tags=["side_effect"])``."""

        def register(func: F) -> F:
            self.add_tool(func, name=name, tags=tags, description=description)
            return func

        return register(function) if function is not None else register

    def tool_specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self._tools.values()]

    def visible_tools(
        self,
        sender: Sender | Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        origin: Origin = "agent",
    ) -> list[ToolSpec]:
        """The registered tools that no ``tool_visible`` handler hides for this scope."""
        self._first_use()
        who = Sender.coerce(sender)
        specs = self.tool_specs()
        return drive_sync(visible(self._registry, specs, who, agent_id, origin), self._background)


def _no_function(name: str) -> Callable[..., Any]:
    def missing(**_params: Any) -> Any:
        raise LookupError(f"tool {name!r} has no implementation here; pass execute= to call()")

    return missing
