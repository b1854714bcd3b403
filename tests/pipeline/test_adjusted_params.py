"""``Runtime.adjusted_params`` is bounded in bytes as well as in count (issue #10 item 11)."""

from __future__ import annotations

from typing import Any

import pytest
from toolhooks import Runtime, ToolCall, hookimpl

MB = 1024 * 1024


@pytest.fixture
def rt() -> Runtime:
    runtime = Runtime(load_entrypoints=False, config={})

    @runtime.tool
    def write(path: str, content: str) -> str:
        return f"wrote {len(content)}"

    yield runtime
    runtime.close()


class AddsNewline:
    """Changes the content of every write (so its final params differ from the proposal)."""

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {"params": {"content": call.params["content"] + "\n"}}


def test_big_params_nobody_changed_are_not_kept(rt: Runtime) -> None:
    big = rt.call({"name": "write", "params": {"path": "a", "content": "x" * MB}})
    small = rt.call({"name": "write", "params": {"path": "b", "content": "x" * 100}})
    assert (big.status, small.status) == ("ok", "ok")
    assert rt.adjusted_params(big.call_id) is None
    assert rt.adjusted_params(small.call_id) == {"path": "b", "content": "x" * 100}


def test_big_params_a_hook_changed_are_kept(rt: Runtime) -> None:
    rt.register(AddsNewline())
    outcome = rt.call({"name": "write", "params": {"path": "a", "content": "x" * MB}})
    assert outcome.content == f"wrote {MB + 1}"
    assert rt.adjusted_params(outcome.call_id) == {"path": "a", "content": "x" * MB + "\n"}


def test_the_memory_is_bounded_in_bytes_oldest_out_first(rt: Runtime) -> None:
    rt.register(AddsNewline())
    ids = []
    for index in range(100):  # 100 MB of adjusted params, more than the 64 MiB kept
        content = str(index) * (MB // len(str(index)))
        ids.append(rt.call({"name": "write", "params": {"path": "a", "content": content}}).call_id)
    kept = [call_id for call_id in ids if rt.adjusted_params(call_id) is not None]
    assert 32 <= len(kept) <= 64
    assert kept == ids[-len(kept) :]  # the newest ones, in one run
    assert rt.adjusted_params(ids[0]) is None
    last = rt.adjusted_params(ids[-1])
    assert last is not None and last["content"].startswith("99") and last["content"][-1] == "\n"
