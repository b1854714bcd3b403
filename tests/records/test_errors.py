"""Every error toolhooks raises is a ToolhooksError; the ValueError ones stay ValueErrors
(issue #17 item 6)."""

from __future__ import annotations

import pytest
import toolhooks
from toolhooks import (
    HookResultError,
    InvalidToolCall,
    ParamsError,
    PluginValidationError,
    ToolCall,
    ToolhooksError,
    hookimpl,
)


@pytest.mark.parametrize(
    "error", [PluginValidationError, HookResultError, ParamsError, InvalidToolCall]
)
def test_the_value_errors_have_toolhooks_error_first_and_value_error_second(error):
    assert error.__bases__ == (ToolhooksError, ValueError)


def test_every_exported_exception_is_a_toolhooks_error_except_the_tools_own():
    exported = {
        name: value
        for name, value in ((name, getattr(toolhooks, name)) for name in toolhooks.__all__)
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    # ToolError is raised by a tool to give the model a message, never by toolhooks.
    outside = sorted(n for n, e in exported.items() if not issubclass(e, ToolhooksError))
    assert outside == ["ToolError"]


def test_a_bad_plugin_is_caught_by_either_base(toolhooks_runtime):
    class Typo:
        @hookimpl
        def before_tool_cal(self, call):
            pass

    with pytest.raises(ToolhooksError, match="unknown hook 'before_tool_cal'"):
        toolhooks_runtime.register(Typo())
    with pytest.raises(ValueError, match="unknown hook 'before_tool_cal'"):
        toolhooks_runtime.register(Typo())


def test_an_invalid_call_is_caught_by_either_base():
    cycle: dict[str, object] = {}
    cycle["self"] = cycle
    with pytest.raises(ToolhooksError, match="reference cycle"):
        ToolCall(name="t", params={"a": cycle})
    with pytest.raises(ValueError, match="tool name must be a non-empty string"):
        ToolCall(name="")
    with pytest.raises(InvalidToolCall):
        ToolCall(name="t", origin="model")  # type: ignore[arg-type]


def test_built_in_plugins_functions_are_not_re_exported_by_the_core():
    """Built-ins are plugins like anyone's (issue #17 item 4): import them from their package."""
    for name in ("prune_context", "PruneReport", "read_artifact"):
        assert name not in toolhooks.__all__
        with pytest.raises(AttributeError):
            getattr(toolhooks, name)
    from toolhooks.plugins.context_pruning import prune_context
    from toolhooks.plugins.result_budget import read_artifact

    assert callable(prune_context) and callable(read_artifact)
