"""What the log keeps of a call so that ``toolhooks whatif`` can rebuild it: ``tool.proposed``
names the run, the sender's roles, channel, name and owner flag, the window and the tool's tags
when they are set (and only then), and ``tool.finished`` a digest of the result."""

from __future__ import annotations

from typing import Any

from toolhooks import Event, Runtime, ToolSpec, hookimpl
from toolhooks.pipeline._conclude import DIGEST_SPAN, result_digest


class Seen:
    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def data(self, name: str) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.events if e.event == name]


def runtime() -> tuple[Runtime, Seen]:
    seen = Seen()
    rt = Runtime(plugins=[seen], config={}, load_entrypoints=False)
    rt.add_tool(ToolSpec("deploy", tags=frozenset({"side_effect", "elevated"})))
    return rt, seen


def test_a_plain_call_keeps_the_short_shape():
    rt, seen = runtime()
    rt.call({"name": "read", "params": {"path": "a"}, "sender": "ann"}, execute=lambda p: "x")
    rt.close()
    (proposed,) = seen.data("tool.proposed")
    assert proposed == {
        "params": {"path": "a"},
        "origin": "agent",
        "agent_id": None,
        "sender": "ann",
    }


def test_the_fields_a_policy_keys_on_are_kept_when_set():
    rt, seen = runtime()
    call = {
        "name": "deploy",
        "params": {"env": "prod"},
        "run_id": "r1",
        "context_window_tokens": 8000,
        "sender": {
            "id": "bob",
            "name": "Bob",
            "channel": "slack",
            "roles": ["ops"],
            "is_owner": True,
        },
    }
    rt.call(call, execute=lambda p: "done")
    rt.close()
    (proposed,) = seen.data("tool.proposed")
    assert proposed["sender"] == "bob"
    assert proposed["sender_detail"] == {
        "name": "Bob",
        "channel": "slack",
        "roles": ["ops"],
        "is_owner": True,
    }
    assert proposed["run_id"] == "r1"
    assert proposed["context_window_tokens"] == 8000
    assert proposed["tags"] == ["elevated", "side_effect"]


def test_the_result_digest_tells_equal_results_from_different_ones():
    rt, seen = runtime()
    results = iter(["same", "same", "other", None])

    def tool(_params: dict[str, Any]) -> Any:
        value = next(results)
        if value is None:
            raise RuntimeError("boom")
        return value

    for _ in range(4):
        rt.call({"name": "poll", "params": {}}, execute=tool)
    rt.close()
    digests = [d["result_digest"] for d in seen.data("tool.finished")]
    assert digests[0] == digests[1] != digests[2]
    assert digests[3] is None  # an error keeps its message instead


def test_a_long_result_is_digested_by_its_length_head_and_tail():
    long = "a" * (3 * DIGEST_SPAN)
    middle_changed = long[: DIGEST_SPAN + 5] + "b" + long[DIGEST_SPAN + 6 :]
    end_changed = long[:-1] + "b"
    assert result_digest(long) == result_digest(middle_changed)  # the documented limit
    assert result_digest(long) != result_digest(end_changed)
    assert result_digest(long) != result_digest(long + "a")
    assert result_digest("\ud800") == result_digest("\ud800")  # a lone surrogate is fine
