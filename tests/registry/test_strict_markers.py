"""Only ``toolhooks.hookimpl`` makes a handler; pluggy options toolhooks would ignore are refused
at registration, naming the option and the toolhooks way (issue #17 item 5)."""

from __future__ import annotations

import types

import pluggy
import pytest
from toolhooks import PluginValidationError, Runtime, hookimpl

pluggy_marker = pluggy.HookimplMarker("toolhooks")


def _refused(rt: Runtime, plugin: object) -> str:
    with pytest.raises(PluginValidationError) as raised:
        rt.register(plugin, name="p")
    assert rt.plugins() == [] and rt.handlers("before_tool_call") == []
    # Refused whole: nothing of it runs, and the name stays free.
    assert rt.call({"name": "t"}, execute=lambda p: "ran").content == "ran"
    return str(raised.value)


def test_an_unmarked_method_named_like_a_hook_is_refused(toolhooks_runtime):
    class Plain:
        def before_tool_call(self, call):
            return {"block": True}

    message = _refused(toolhooks_runtime, Plain())
    assert message == (
        "plugin 'p': before_tool_call is named like a hook but not marked: decorate it with "
        "@toolhooks.hookimpl (only marked functions are handlers)"
    )


def test_an_unmarked_module_function_named_like_a_hook_is_refused(toolhooks_runtime):
    module = types.ModuleType("plain_plugin")
    module.on_event = lambda event: None  # type: ignore[attr-defined]
    assert "on_event is named like a hook but not marked" in _refused(toolhooks_runtime, module)


def test_pluggys_own_marker_is_refused_with_the_toolhooks_one_named(toolhooks_runtime):
    class Pluggy:
        @pluggy_marker
        def before_tool_call(self, call):
            return {"block": True}

    message = _refused(toolhooks_runtime, Pluggy())
    assert message == (
        "plugin 'p': before_tool_call is marked with pluggy's own HookimplMarker; use "
        "@toolhooks.hookimpl (it takes priority=, tools= and timeout=)"
    )


@pytest.mark.parametrize(
    ("option", "instead"),
    [
        ("tryfirst", "use @toolhooks.hookimpl(priority=N); a higher priority runs first"),
        ("trylast", "use @toolhooks.hookimpl(priority=N); a lower (negative) priority runs last"),
        ("hookwrapper", "toolhooks has no wrappers"),
        ("wrapper", "toolhooks has no wrappers"),
        ("optionalhook", "toolhooks has no optional hooks"),
    ],
)
def test_a_pluggy_option_toolhooks_does_not_honour_is_refused(toolhooks_runtime, option, instead):
    class Ordered:
        @pluggy_marker(**{option: True})
        def before_tool_call(self, call):
            return {"block": True}

    message = _refused(toolhooks_runtime, Ordered())
    assert message.startswith(
        f"plugin 'p': before_tool_call is marked with the pluggy option {option}=True, which "
        "toolhooks does not honour: "
    ), message
    assert instead in message


def test_tryfirst_no_longer_loses_silently_to_a_priority(toolhooks_runtime):
    """The bug that started this: tryfirst was ignored and a priority-5 handler ran first."""
    seen: list[str] = []

    class Five:
        @hookimpl(priority=5)
        def before_tool_call(self, call):
            seen.append("five")

    class First:
        @pluggy_marker(tryfirst=True)
        def before_tool_call(self, call):
            seen.append("first")

    toolhooks_runtime.register(Five(), name="five")
    with pytest.raises(PluginValidationError, match="priority=N"):
        toolhooks_runtime.register(First(), name="first")
    toolhooks_runtime.call({"name": "t"}, execute=lambda p: None)
    assert seen == ["five"]


def test_marked_handlers_and_other_methods_are_fine(toolhooks_runtime):
    class Fine:
        def helper(self):  # not named like a hook: none of toolhooks' business
            return 1

        before_tool_call_count = 0  # not a function

        @hookimpl(specname="before_tool_call")
        def block_everything(self, call):
            return {"block": True, "block_reason": "no"}

    toolhooks_runtime.register(Fine(), name="fine")
    assert toolhooks_runtime.call({"name": "t"}, execute=lambda p: 1).reason == "no"


def test_only_objects_own_attributes_are_skipped_before_pluggy_looks():
    import types

    from toolhooks.registry._registry import _only_objects

    class Plugin:
        def __repr__(self):
            return "mine"

    plugin = Plugin()
    plugin.__dict__["__format__"] = lambda spec: ""
    assert _only_objects(plugin, "__eq__") and _only_objects(plugin, "__sizeof__")
    assert not _only_objects(plugin, "__repr__")  # its class's own: pluggy reads it
    assert not _only_objects(plugin, "__format__")  # the instance's own
    assert not _only_objects(Plugin, "__eq__") and not _only_objects(types, "__eq__")
