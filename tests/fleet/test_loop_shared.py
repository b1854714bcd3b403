"""loop_detection with ``[state] url``: one session's window shared by every runtime."""

from __future__ import annotations

import redis
from toolhooks import MemoryStore, Runtime
from toolhooks.plugins.loop_detection import LoopDetectionPlugin
from toolhooks.plugins.loop_detection._shared import SharedSessionStore, decode, encode
from toolhooks.plugins.loop_detection._state import SessionState


def make(state: dict, **loop: object) -> Runtime:
    config = {"state": state, "plugins": {"loop_detection": loop}}
    return Runtime(
        plugins=[LoopDetectionPlugin],
        config=config,
        load_entrypoints=False,
        approval_store=MemoryStore(),  # what loop detection alone does (see call_limits tests)
    )


def same(params: dict) -> str:
    return "no news"


def run(
    runtimes: list[Runtime], session: str, count: int
) -> list[tuple[str, str | None, list[str]]]:
    """``count`` identical calls of one session, taking turns over ``runtimes``."""
    seen = []
    for index in range(count):
        rt = runtimes[index % len(runtimes)]
        outcome = rt.call({"name": "poll", "params": {"q": 1}, "session_id": session}, execute=same)
        seen.append((outcome.status, outcome.reason, list(outcome.notes)))
    return seen


def test_two_runtimes_sharing_a_session_decide_exactly_as_one_process_would(state_table):
    alone = Runtime(plugins=[LoopDetectionPlugin], config={}, load_entrypoints=False)
    expected = run([alone], "s", 30)
    first, second = make(state_table), make(state_table)
    assert isinstance(first.get_plugin("loop_detection")._sessions, SharedSessionStore)
    assert run([first, second], "s", 30) == expected
    # The sequence does hold a warning (once) and a block, so the comparison means something.
    assert sum(1 for _, _, notes in expected if notes) == 1
    blocked = [reason for status, reason, _ in expected if status == "blocked"]
    assert blocked and blocked[0].startswith("CRITICAL")
    streak = alone.get_plugin("loop_detection").no_progress_streak("s")
    assert first.get_plugin("loop_detection").no_progress_streak("s") == streak
    assert second.get_plugin("loop_detection").has_session("s")
    # Another session is untouched, in either runtime.
    assert run([first], "t", 1) == [("ok", None, [])]


def test_sessions_are_bounded_least_recently_used_first(state_table):
    rt = make(state_table, max_sessions=3)
    plugin = rt.get_plugin("loop_detection")
    for session in ["a", "b", "c", "d"]:
        rt.call({"name": "x", "session_id": session}, execute=same)
    assert plugin.session_count() == 3
    assert not plugin.has_session("a")
    assert plugin.has_session("d")
    plugin.reset()
    assert plugin.session_count() == 0


def test_sessions_expire_after_the_state_ttl(state_table, redis_url):
    rt = make({**state_table, "session_ttl_s": 60})
    rt.call({"name": "x", "session_id": "e"}, execute=same)
    client = redis.Redis.from_url(redis_url)
    [key] = [k for k in client.scan_iter(match=f"{state_table['key_prefix']}:loop:s:*")]
    assert 0 < client.pttl(key) <= 60_000
    client.close()


def test_a_damaged_stored_session_is_started_afresh_not_trusted():
    assert decode(b"{not json").total == 0
    assert decode(b'{"s":"00","o":"0000","t":1,"k":0,"n":"","w":[],"u":[]}').total == 0
    state = SessionState(__import__("threading").Lock())
    state.append(b"12345678", "poll", 30)
    state.first_warning((1, b"12345678"), 1)
    state.note_unknown(7, True)
    copy = decode(encode(state))
    assert (copy.total, copy.sigs, copy.warned, copy.unknown) == (
        1,
        bytearray(b"12345678"),
        {(1, b"12345678"): 1},
        {7: 1},
    )


def test_unreachable_state_blocks_the_call_with_the_reason():
    rt = make({"url": "redis://127.0.0.1:1/0", "timeout_s": 0.5})
    outcome = rt.call({"name": "x", "session_id": "s"}, execute=same)
    assert outcome.status == "blocked"
    assert outcome.blocked_by == "loop_detection"
    assert "before_tool_call hook loop_detection failed" in (outcome.reason or "")
    assert (
        "shared state at redis://127.0.0.1:1/0 unavailable while updating a loop-detection session"
        in (outcome.reason or "")
    )
