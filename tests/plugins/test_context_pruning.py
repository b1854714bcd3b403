"""prune_context: soft trim over 30 %, hard clear over 50 %, the protected tail, bad input."""

from __future__ import annotations

import copy
import math
import types
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolhooks.plugins.context_pruning import CLEARED_PLACEHOLDER, PruneReport, prune_context
from toolhooks.plugins.context_pruning._shapes import message_chars

WINDOW = 100_000  # tokens; at 4 chars a token: soft limit 120_000 chars, hard limit 200_000
SOFT_LIMIT = 120_000
HARD_LIMIT = 200_000


def body(n: int) -> str:
    """n characters whose head and tail are recognisable."""
    if n < 3000:
        return "m" * n
    return "H" * 1500 + "m" * (n - 3000) + "T" * 1500


def user(n: int) -> dict[str, Any]:
    return {"role": "user", "content": "u" * n}


def assistant(text: str = "") -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def tool(n: int, call_id: str = "c") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": body(n)}


def tail_turns(k: int = 3) -> list[dict[str, Any]]:
    return [assistant() for _ in range(k)]


def conversation(results: list[int], filler: int = 0, tail: int = 3) -> list[dict[str, Any]]:
    """[user(filler), (assistant, tool)*, assistant*tail]: every char is filler or a result."""
    messages: list[dict[str, Any]] = [user(filler)]
    for n, size in enumerate(results):
        messages += [assistant(), tool(size, f"call_{n}")]
    return messages + tail_turns(tail)


def estimate(messages: list[dict[str, Any]]) -> int:
    return sum(message_chars(m) for m in messages)


def freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return types.MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


# -- soft trim ---------------------------------------------------------------------------------


def test_nothing_happens_at_exactly_the_soft_ratio():
    messages = conversation([10_000], filler=SOFT_LIMIT - 10_000)
    assert estimate(messages) == SOFT_LIMIT
    new, report = prune_context(messages, WINDOW)
    assert new == messages and new is not messages
    assert all(a is b for a, b in zip(new, messages, strict=True))
    assert not report.changed and report.soft_trimmed == 0 and report.cleared == 0
    assert report.chars_before == report.chars_after == SOFT_LIMIT


def test_one_char_past_the_soft_ratio_trims():
    messages = conversation([10_000], filler=SOFT_LIMIT - 10_000 + 1)
    new, report = prune_context(messages, WINDOW)
    trimmed = new[2]["content"]
    assert trimmed.startswith("H" * 1500 + "\n...\n" + "T" * 1500)
    assert trimmed.endswith(
        "[Tool result trimmed: kept first 1500 and last 1500 of 10000 characters.]"
    )
    assert "m" not in trimmed[:3010]
    assert report.soft_trimmed == 1 and report.soft_trimmed_indices == (2,)
    assert report.chars_after == report.chars_before - 10_000 + len(trimmed)
    assert new[2]["tool_call_id"] == "call_0" and new[2]["role"] == "tool"


def test_soft_trim_only_results_over_4000_chars():
    messages = conversation([4000, 4001, 3999, 50_000], filler=SOFT_LIMIT)
    new, report = prune_context(messages, WINDOW)
    assert new[2] is messages[2] and new[6] is messages[6]  # 4000 and 3999: kept
    assert new[4] is not messages[4] and new[8] is not messages[8]
    assert report.soft_trimmed_indices == (4, 8)
    assert "of 4001 characters" in new[4]["content"]


def test_custom_trim_sizes_and_ratio():
    messages = conversation([1000], filler=100)
    new, report = prune_context(
        messages, 1000, soft_ratio=0.25, soft_trim_over=999, keep_head=10, keep_tail=0
    )
    assert new[2]["content"].startswith("m" * 10 + "\n...\n\n\n[Tool result trimmed: kept first 10")
    assert "last 0 of 1000" in new[2]["content"]
    assert report.soft_trimmed == 1


def test_a_trim_that_would_not_shrink_is_skipped():
    messages = conversation([5000], filler=SOFT_LIMIT)
    new, report = prune_context(messages, WINDOW, keep_head=3000, keep_tail=3000)
    assert new[2] is messages[2] and report.soft_trimmed == 0


# -- hard clear --------------------------------------------------------------------------------


def test_hard_clear_oldest_first_until_no_longer_over_half():
    messages = conversation([4000] * 60)  # 240_000 chars, none over 4000: soft trim does nothing
    assert estimate(messages) == 240_000
    new, report = prune_context(messages, WINDOW)
    saved = 4000 - len(CLEARED_PLACEHOLDER)
    expected = math.ceil((240_000 - HARD_LIMIT) / saved)  # 11
    assert report.cleared == expected and report.soft_trimmed == 0
    assert report.cleared_indices == tuple(2 + 2 * n for n in range(expected))
    for n in range(60):
        content = new[2 + 2 * n]["content"]
        assert (content == CLEARED_PLACEHOLDER) is (n < expected)
    assert report.chars_after == 240_000 - expected * saved
    assert report.chars_after <= HARD_LIMIT < report.chars_after + saved
    assert report.chars_after == estimate(new)


def test_hard_clear_stops_exactly_at_the_hard_ratio():
    saved = 10_000 - len(CLEARED_PLACEHOLDER)
    # after two clears the estimate is exactly HARD_LIMIT: not over it, so the third stays
    filler = HARD_LIMIT + 2 * saved - 3 * 10_000
    messages = conversation([10_000] * 3, filler=filler)
    new, report = prune_context(messages, WINDOW, soft_trim_over=10_000, min_prunable_chars=0)
    assert report.cleared == 2 and report.chars_after == HARD_LIMIT
    assert new[6] is messages[6]


def test_no_hard_clear_at_exactly_the_hard_ratio():
    messages = conversation([4000] * 20, filler=HARD_LIMIT - 80_000)
    new, report = prune_context(messages, WINDOW)
    assert estimate(messages) == HARD_LIMIT
    assert report.cleared == 0 and new == messages


def test_hard_clear_needs_min_prunable_chars():
    # protected content keeps the context over half; the prunable results hold exactly 50_000
    messages = conversation([5000] * 10, tail=0)
    messages += [assistant(), tool(250_000), assistant(), assistant()]
    new, report = prune_context(messages, WINDOW, soft_trim_over=5000)
    assert report.prunable_chars == 50_000
    assert report.cleared == 10  # clears all and is still over: nothing left to clear
    assert report.chars_after > HARD_LIMIT
    assert new[-3] is messages[-3]

    messages[2] = tool(4999, "call_0")  # now 49_999 prunable chars: no hard clear at all
    new, report = prune_context(messages, WINDOW, soft_trim_over=5000)
    assert report.prunable_chars == 49_999 and report.cleared == 0
    assert all(a is b for a, b in zip(new, messages, strict=True))


def test_prunable_chars_are_counted_after_soft_trim():
    # 20 results of 10_000 chars: 200_000 prunable before trimming, 20 * 3080 after
    messages = conversation([10_000] * 20, filler=170_000)
    new, report = prune_context(messages, WINDOW)
    trimmed = len(new[-4]["content"])  # the newest result: trimmed, not cleared
    assert trimmed == 1500 + 5 + 1500 + len(
        "\n\n[Tool result trimmed: kept first 1500 and last 1500 of 10000 characters.]"
    )
    assert report.prunable_chars == 20 * trimmed > 50_000
    over = 170_000 + 20 * trimmed - HARD_LIMIT
    assert report.cleared == math.ceil(over / (trimmed - len(CLEARED_PLACEHOLDER)))
    assert report.soft_trimmed == 20 - report.cleared
    assert report.cleared_indices == tuple(2 + 2 * n for n in range(report.cleared))


def test_soft_trimmed_then_cleared_counts_as_cleared():
    messages = conversation([100_000, 100_000, 100_000])
    new, report = prune_context(messages, WINDOW)
    assert report.soft_trimmed == 3 and report.cleared == 0  # 300_000 -> ~9_000: under half
    new, report = prune_context(conversation([100_000] * 3, filler=300_000), WINDOW)
    assert report.soft_trimmed == 3 and report.cleared == 0  # 9_243 prunable: under 50_000
    new, report = prune_context(conversation([100_000] * 20, filler=300_000), WINDOW)
    assert report.cleared == 20 and report.soft_trimmed == 0 and report.soft_trimmed_indices == ()
    assert {new[i]["content"] for i in range(2, 42, 2)} == {CLEARED_PLACEHOLDER}
    assert report.chars_after > HARD_LIMIT  # nothing left to clear


def test_ratio_boundary_is_exact_for_decimal_ratios():
    # 0.29 * 100_000 tokens * 4 = 116_000 chars exactly, though the float product is
    # 115999.99999999999: a context of exactly 116_000 chars is not over the ratio
    messages = conversation([10_000], filler=106_000)
    _, report = prune_context(messages, WINDOW, soft_ratio=0.29)
    assert report.chars_before == 116_000 and not report.changed
    messages = conversation([10_000], filler=106_001)
    _, report = prune_context(messages, WINDOW, soft_ratio=0.29)
    assert report.soft_trimmed == 1
    # the same for the hard ratio: 0.57 -> 228_000 chars
    messages = conversation([4000] * 57)
    assert estimate(messages) == 228_000
    _, report = prune_context(messages, WINDOW, hard_ratio=0.57)
    assert not report.changed
    messages = conversation([4000] * 57, filler=1)
    _, report = prune_context(messages, WINDOW, hard_ratio=0.57)
    assert report.cleared == 1


def test_chars_per_token_changes_the_estimate():
    messages = conversation([10_000], filler=50_000)  # 60_000 chars
    _, report = prune_context(messages, WINDOW)  # 15_000 tokens: 15 %
    assert report.tokens_before == 15_000 and not report.changed
    _, report = prune_context(messages, WINDOW, chars_per_token=2)  # 30_000 tokens: exactly 30 %
    assert report.tokens_before == 30_000 and not report.changed
    _, report = prune_context(messages, WINDOW, chars_per_token=1.9)
    assert report.tokens_before == math.ceil(60_000 / 1.9) and report.soft_trimmed == 1


# -- the protected tail ------------------------------------------------------------------------


def test_last_three_assistant_turns_are_never_touched():
    messages = [user(0)]
    for n in range(6):
        messages += [assistant(), tool(100_000, f"call_{n}")]
    new, report = prune_context(messages, WINDOW)
    # assistants at 1, 3, 5, 7, 9, 11: the third from last is index 7
    assert report.protected_from == 7
    assert report.soft_trimmed_indices == (2, 4, 6)
    assert all(new[i] is messages[i] for i in range(7, len(messages)))


def test_fewer_assistant_turns_than_kept_touches_nothing():
    messages = [user(0), assistant(), tool(500_000), assistant(), tool(500_000)]
    new, report = prune_context(messages, WINDOW)
    assert report.protected_from == 0 and not report.changed
    assert all(a is b for a, b in zip(new, messages, strict=True))


@pytest.mark.parametrize(("keep", "trimmed"), [(0, (2, 4, 6)), (1, (2, 4)), (2, (2,)), (3, ())])
def test_keep_last_assistant_is_configurable(keep, trimmed):
    messages = [user(0)]
    for n in range(3):
        messages += [assistant(), tool(100_000, f"call_{n}")]
    _, report = prune_context(messages, WINDOW, keep_last_assistant=keep)
    assert report.soft_trimmed_indices == trimmed


# -- message shapes ----------------------------------------------------------------------------


def anthropic_results(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def test_anthropic_tool_results_in_a_user_message():
    text_block = {"type": "text", "text": "see results"}
    big_str = {"type": "tool_result", "tool_use_id": "tu_1", "content": body(10_000)}
    big_list = {
        "type": "tool_result",
        "tool_use_id": "tu_2",
        "is_error": True,
        "content": [{"type": "text", "text": body(6000)}, {"type": "text", "text": "end"}],
    }
    small = {"type": "tool_result", "tool_use_id": "tu_3", "content": "ok"}
    messages = [
        user(SOFT_LIMIT),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "tu_1", "name": "read", "input": {}}],
        },
        anthropic_results(text_block, big_str, big_list, small),
        *tail_turns(),
    ]
    new, report = prune_context(messages, WINDOW)
    assert report.soft_trimmed == 2 and report.soft_trimmed_indices == (2,)
    blocks = new[2]["content"]
    assert blocks[0] is text_block and blocks[3] is small
    assert blocks[1]["tool_use_id"] == "tu_1" and blocks[1]["content"].startswith("H" * 1500)
    assert blocks[2]["tool_use_id"] == "tu_2" and blocks[2]["is_error"] is True
    [part] = blocks[2]["content"]
    assert part["type"] == "text" and part["text"].endswith("of 6004 characters.]")
    assert part["text"].startswith("H" * 1500) and "m\nend\n" not in part["text"]
    assert messages[2]["content"][1] is big_str and big_str["content"] == body(10_000)


def test_anthropic_hard_clear_keeps_the_shape():
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": f"tu_{n}",
            "content": [{"type": "text", "text": body(4000)}],
        }
        for n in range(20)
    ]
    messages = [user(HARD_LIMIT), assistant(), anthropic_results(*blocks), *tail_turns()]
    new, report = prune_context(messages, WINDOW)
    assert report.cleared == 20 and report.cleared_indices == (2,)
    for n, block in enumerate(new[2]["content"]):
        assert block == {
            "type": "tool_result",
            "tool_use_id": f"tu_{n}",
            "content": [{"type": "text", "text": CLEARED_PLACEHOLDER}],
        }


def test_openai_list_content_and_legacy_function_role():
    messages = [
        user(SOFT_LIMIT),
        assistant(),
        {"role": "tool", "tool_call_id": "a", "content": [{"type": "text", "text": body(5000)}]},
        {"role": "function", "name": "old_style", "content": body(5000)},
        *tail_turns(),
    ]
    new, report = prune_context(messages, WINDOW)
    assert report.soft_trimmed_indices == (2, 3)
    [part] = new[2]["content"]
    assert part["type"] == "text" and "of 5000 characters" in part["text"]
    assert new[3]["name"] == "old_style" and "of 5000 characters" in new[3]["content"]


def test_results_with_images_or_unknown_parts_are_left_alone():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 100_000}}
    messages = [
        user(HARD_LIMIT * 2),
        assistant(),
        {
            "role": "tool",
            "tool_call_id": "a",
            "content": [{"type": "text", "text": body(60_000)}, image],
        },
        anthropic_results(
            {
                "type": "tool_result",
                "tool_use_id": "b",
                "content": [{"type": "image", "source": {"type": "base64", "data": "Q" * 10}}],
            }
        ),
        *tail_turns(),
    ]
    new, report = prune_context(messages, WINDOW, min_prunable_chars=0)
    assert not report.changed and all(a is b for a, b in zip(new, messages, strict=True))
    assert report.chars_before == HARD_LIMIT * 2 + 60_000  # image data is not text


@pytest.mark.parametrize(
    "odd",
    [
        {"role": "tool", "tool_call_id": "x", "content": 12345},
        {"role": "tool", "tool_call_id": "x", "content": {"output": "y" * 10_000}},
        {"role": "tool", "tool_call_id": "x", "content": None},
        {"role": "tool", "tool_call_id": "x"},
        {"role": "tool", "content": b"bytes" * 10_000},
        {"role": "narrator", "content": "z" * 10_000},
        {"content": "no role " * 1000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]},
        {"role": "user", "content": [{"type": "tool_result", "content": 42}, "plain", 7, None]},
        {"role": "user", "content": [{"type": "mystery", "payload": "p" * 10_000}]},
        {},
    ],
)
def test_unknown_shapes_pass_through_untouched(odd):
    messages = [user(HARD_LIMIT), assistant(), odd, assistant(), tool(60_000), *tail_turns()]
    before = copy.deepcopy(messages)
    new, report = prune_context(messages, WINDOW)
    assert new[2] is odd and messages == before
    assert report.soft_trimmed_indices == (4,)


def test_estimate_counts_text_tool_calls_and_tool_use():
    messages = [
        {"role": "system", "content": "abc"},
        {"role": "user", "content": [{"type": "text", "text": "12345"}, "67"]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "tool_use", "id": "t", "name": "read", "input": {"p": "x"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "ls", "arguments": '{"a":1}'}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "text", "text": "ab"}, {"type": "text", "text": "cd"}],
        },
    ]
    _, report = prune_context(messages, 1000)
    input_chars = len('{"p": "x"}')
    assert report.chars_before == 3 + 7 + 3 + 4 + input_chars + 2 + 7 + 4
    assert report.tokens_before == math.ceil(report.chars_before / 4)
    assert report.ratio_before == report.tokens_before / 1000


# -- never mutating, idempotent, big input -----------------------------------------------------


def test_input_is_never_mutated_even_when_frozen():
    messages = conversation([100_000, 4000, 8000] + [4000] * 40, filler=150_000)
    messages.insert(
        3,
        anthropic_results(
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": [{"type": "text", "text": body(9000)}],
            },
            {"type": "text", "text": "note"},
        ),
    )
    snapshot = copy.deepcopy(messages)
    frozen = freeze(messages)
    # MappingProxyType and tuples cannot be written to: any attempt would raise
    new_frozen, frozen_report = prune_context(list(frozen), WINDOW)
    new, report = prune_context(messages, WINDOW)
    assert messages == snapshot
    assert report == frozen_report and report.changed and report.cleared > 0
    for index, (old, fresh) in enumerate(zip(frozen, new_frozen, strict=True)):
        if fresh is not old:
            assert index in report.soft_trimmed_indices + report.cleared_indices
            assert isinstance(fresh, dict) and fresh["content"] != old["content"]
    for old, fresh in zip(messages, new, strict=True):
        if fresh is not old:
            assert fresh != old
    assert estimate(new) == report.chars_after


def test_pruning_twice_changes_nothing_more():
    messages = conversation([10_000] * 30 + [4000] * 30, filler=100_000)
    once, first = prune_context(messages, WINDOW)
    twice, second = prune_context(once, WINDOW)
    assert first.changed
    assert second.soft_trimmed == 0 and second.cleared == 0
    assert all(a is b for a, b in zip(twice, once, strict=True))


def test_a_huge_result_is_trimmed():
    messages = conversation([5_000_000])
    new, report = prune_context(messages, WINDOW)
    assert len(new[2]["content"]) < 3200 and report.soft_trimmed == 1
    assert report.chars_before == 5_000_000


def test_tuple_input_and_empty_input():
    new, report = prune_context((), WINDOW)
    assert new == [] and report.chars_before == 0 and not report.changed
    messages = tuple(conversation([10_000], filler=SOFT_LIMIT))
    new, report = prune_context(messages, WINDOW)
    assert isinstance(new, list) and report.soft_trimmed == 1


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("messages", [None, "hello", {"role": "user"}, 5, iter([]), b"x"])
def test_messages_must_be_a_list(messages):
    with pytest.raises(TypeError, match="messages must be a list"):
        prune_context(messages, WINDOW)


def test_a_message_that_is_not_a_dict_is_named_by_index():
    with pytest.raises(TypeError, match=r"messages\[2\] must be a dict.*got str"):
        prune_context([user(1), assistant(), "oops"], WINDOW)

    class SdkMessage:
        def model_dump(self) -> dict[str, Any]:
            return {}

    with pytest.raises(TypeError, match=r"messages\[0\].*model_dump"):
        prune_context([SdkMessage()], WINDOW)


@pytest.mark.parametrize(
    ("window", "error"),
    [
        (0, ValueError),
        (-5, ValueError),
        (True, TypeError),
        (1.5, TypeError),
        (None, TypeError),
        ("8k", TypeError),
    ],
)
def test_context_window_must_be_a_positive_int(window, error):
    with pytest.raises(error, match="context_window_tokens"):
        prune_context([], window)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"soft_ratio": 0}, ValueError),
        ({"hard_ratio": -0.5}, ValueError),
        ({"soft_ratio": float("nan")}, ValueError),
        ({"hard_ratio": float("inf")}, ValueError),
        ({"soft_ratio": "0.3"}, TypeError),
        ({"chars_per_token": 0}, ValueError),
        ({"chars_per_token": True}, TypeError),
        ({"keep_head": -1}, ValueError),
        ({"keep_tail": 1.5}, TypeError),
        ({"soft_trim_over": -1}, ValueError),
        ({"min_prunable_chars": -1}, ValueError),
        ({"keep_last_assistant": -1}, ValueError),
        ({"keep_last_assistant": None}, TypeError),
    ],
)
def test_bad_options_are_rejected_by_name(kwargs, error):
    (name,) = kwargs
    with pytest.raises(error, match=name):
        prune_context([], WINDOW, **kwargs)


def test_report_is_a_frozen_dataclass():
    _, report = prune_context([], WINDOW)
    assert isinstance(report, PruneReport)
    with pytest.raises(AttributeError):
        report.cleared = 3  # type: ignore[misc]


# -- properties --------------------------------------------------------------------------------

part = st.one_of(
    st.builds(lambda n: {"type": "text", "text": "x" * n}, st.integers(0, 9000)),
    st.builds(
        lambda n, listed: {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": [{"type": "text", "text": "y" * n}] if listed else "y" * n,
        },
        st.integers(0, 30_000),
        st.booleans(),
    ),
    st.just({"type": "image", "source": {"data": "zz"}}),
)
message = st.one_of(
    st.builds(lambda n: {"role": "user", "content": "u" * n}, st.integers(0, 20_000)),
    st.builds(lambda n: {"role": "assistant", "content": "a" * n}, st.integers(0, 2000)),
    st.builds(
        lambda n: {"role": "tool", "tool_call_id": "c", "content": "r" * n}, st.integers(0, 40_000)
    ),
    st.builds(lambda parts: {"role": "user", "content": parts}, st.lists(part, max_size=4)),
)


@settings(max_examples=150)
@given(st.lists(message, max_size=25), st.integers(1000, 60_000), st.integers(0, 4))
def test_properties(messages, window, keep):
    snapshot = copy.deepcopy(messages)
    new, report = prune_context(messages, window, keep_last_assistant=keep)
    assert messages == snapshot
    assert len(new) == len(messages)
    assert report.chars_before == estimate(messages)
    assert report.chars_after == estimate(new) <= report.chars_before
    assert all(new[i] is messages[i] for i in range(report.protected_from, len(messages)))
    assert set(report.soft_trimmed_indices).isdisjoint(range(report.protected_from, len(messages)))
    changed = {i for i, (a, b) in enumerate(zip(new, messages, strict=True)) if a is not b}
    assert changed == set(report.soft_trimmed_indices) | set(report.cleared_indices)
    if report.chars_before <= 0.3 * window * 4 and report.chars_before <= 0.5 * window * 4:
        assert not report.changed
    if report.cleared:
        assert report.chars_before > 0.5 * window * 4 and report.prunable_chars >= 50_000
