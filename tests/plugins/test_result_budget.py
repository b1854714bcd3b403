"""The built-in result_budget plugin: the budget rules, trimming, JSON summaries, the artifact
store and its reader, the bad inputs, and runs through a Runtime."""

from __future__ import annotations

import datetime
import hashlib
import inspect
import json
import os
import re
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from toolhooks import (
    AfterToolCallResult,
    ConfigError,
    Runtime,
    ToolCall,
    ToolResult,
    hookimpl,
)
from toolhooks.plugins.result_budget import (
    DEFAULT_TAIL_PATTERNS,
    ArtifactNotFoundError,
    ArtifactPage,
    ArtifactStore,
    ResultBudgetConfig,
    ResultBudgetPlugin,
    Tier,
    parse_ref,
    read_artifact,
    read_artifact_page,
    read_artifact_tool,
)
from toolhooks.plugins.result_budget._summary import structural_summary, summarize
from toolhooks.plugins.result_budget._trim import notice
from toolhooks.testing import EventRecorder

REF_RE = re.compile(r"sha256:[0-9a-f]{64}")
NOTICE_RE = re.compile(r"\[\.\.\. (\d+) more characters truncated\]")
NEUTRAL = "the quick brown fox jumps over the lazy dog"  # matches no tail pattern


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Every test runs in its own directory, so the default artifact dir lands there."""
    monkeypatch.chdir(tmp_path)


def make(tmp_path: Path | None = None, **config: object) -> ResultBudgetPlugin:
    if tmp_path is not None:
        config.setdefault("artifact_dir", str(tmp_path / "artifacts"))
    return ResultBudgetPlugin(ResultBudgetConfig(**config))


def run(
    plugin: ResultBudgetPlugin,
    content: str,
    value: object = None,
    tokens: int | None = None,
    status: str = "ok",
) -> AfterToolCallResult | None:
    call = ToolCall(name="tool", context_window_tokens=tokens)
    return plugin.after_tool_call(call, ToolResult(status, value, content))


def summarize_value(plugin: ResultBudgetPlugin, content: str, value: object) -> str:
    """The trimmed text of ``content`` when the caller vouches that it renders ``value``."""
    return plugin.trim(content, value, plugin.budget_for(None)).content


def lines(count: int, width: int = 60, word: str = NEUTRAL) -> str:
    body = (word * (width // len(word) + 1))[: width - 8]
    return "\n".join(f"{i:07d} {body}" for i in range(count))


def summary_part(content: str) -> str:
    """The summary text before its notice line."""
    return content[: content.rindex("\n[... ")]


def assert_shortened(shown: list[object], original: list[object]) -> int:
    """``shown`` is a prefix of ``original`` plus the count of the rest; returns the prefix size."""
    kept = len(shown) - 1
    assert shown[:kept] == original[:kept]
    assert shown[kept] == f"... {len(original) - kept} more items ({len(original)} total)"
    return kept


# -- configuration ---------------------------------------------------------------------------


def test_defaults():
    config = ResultBudgetConfig()
    assert [(t.min_tokens, t.max_chars) for t in config.tiers] == [
        (0, 16_000),
        (100_000, 32_000),
        (200_000, 64_000),
    ]
    assert config.context_share == 0.3
    assert config.chars_per_token == 4
    assert config.floor == 2_000
    assert config.artifact_dir == ".toolhooks/artifacts"
    assert config.store_artifacts is True
    assert config.json_summary is True
    assert config.json_array_keep == 5
    assert config.tail_patterns == list(DEFAULT_TAIL_PATTERNS)
    assert ResultBudgetPlugin.Config is ResultBudgetConfig
    assert ResultBudgetPlugin.priority == -10_000
    assert ResultBudgetPlugin().config == config


def test_unknown_key_rejected():
    with pytest.raises(ValidationError, match="extra"):
        ResultBudgetConfig(flor=100)
    with pytest.raises(ValidationError):
        Tier(min_tokens=0, max_chars=10, extra=1)


@pytest.mark.parametrize(
    "key",
    [
        "floor",
        "tail_scan_chars",
        "snap_chars",
        "json_array_keep",
        "json_string_keep",
        "json_parse_max_chars",
        "tail_share",
        "context_share",
        "chars_per_token",
        "json_max_depth",
    ],
)
def test_negative_numbers_rejected(key):
    with pytest.raises(ValidationError, match=key):
        ResultBudgetConfig(**{key: -1})


@pytest.mark.parametrize(
    "changes",
    [
        {"context_share": 0},
        {"context_share": 1.5},
        {"chars_per_token": 0},
        {"tail_share": 1},
        {"json_max_depth": 0},
        {"artifact_dir": ""},
        {"tiers": []},
        {"tiers": [{"min_tokens": 10, "max_chars": 100}]},
        {"tiers": [{"min_tokens": 0, "max_chars": 100}, {"min_tokens": 0, "max_chars": 200}]},
        {"tiers": [{"min_tokens": 0, "max_chars": 0}]},
        {"tiers": [{"min_tokens": -1, "max_chars": 10}]},
        {"tail_patterns": ["(unclosed"]},
    ],
)
def test_bad_values_rejected(changes):
    with pytest.raises(ValidationError):
        ResultBudgetConfig(**changes)


def test_config_through_runtime(tmp_path):
    table = {
        "floor": 3_000,
        "tiers": [{"min_tokens": 0, "max_chars": 5_000}],
        "artifact_dir": str(tmp_path / "a"),
    }
    rt = Runtime(config={"plugins": {"only": ["result_budget"], "result_budget": table}})
    plugin = rt.get_plugin("result_budget")
    assert isinstance(plugin, ResultBudgetPlugin)
    assert plugin.budget_for(None) == 5_000
    assert [(p.name, p.priority) for p in rt.plugins()] == [("result_budget", -10_000)]
    with pytest.raises(ConfigError, match="flor"):
        Runtime(config={"plugins": {"only": ["result_budget"], "result_budget": {"flor": 1}}})
    with pytest.raises(ConfigError, match="floor"):
        Runtime(config={"plugins": {"only": ["result_budget"], "result_budget": {"floor": -1}}})


# -- the budget ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "chars"),
    [
        (None, 16_000),
        (99_999, 16_000),
        (100_000, 32_000),
        (199_999, 32_000),
        (200_000, 64_000),
        (1_000_000, 64_000),
    ],
)
def test_tiers(tokens, chars):
    plugin = ResultBudgetPlugin()
    assert plugin.budget_for(tokens) == chars
    assert run(plugin, "x" * chars, tokens=tokens) is None
    trimmed = run(plugin, "x" * (chars + 1), tokens=tokens)
    assert trimmed is not None and trimmed.truncated
    assert len(trimmed.content) <= chars


@pytest.mark.parametrize(
    ("tokens", "chars"),
    [(10_000, 12_000), (13_333, 15_999), (5_000, 6_000), (1_667, 2_000), (13_334, 16_000)],
)
def test_context_share(tokens, chars):
    assert ResultBudgetPlugin().budget_for(tokens) == chars


def test_context_share_is_exact_arithmetic():
    # 0.3 * 4 is 1.2000000000000002 in floats; the budget uses the exact 6/5.
    plugin = make(floor=0)
    assert plugin.budget_for(5) == 6
    assert plugin.budget_for(10) == 12
    assert plugin.budget_for(1) == 1
    custom = make(floor=0, context_share=0.5, chars_per_token=3)
    assert custom.budget_for(10_000) == 15_000
    assert make(floor=0, chars_per_token=3.5).budget_for(1_000) == 1_050


def test_share_caps_a_higher_tier():
    plugin = make(
        tiers=[{"min_tokens": 0, "max_chars": 16_000}, {"min_tokens": 10, "max_chars": 10**9}]
    )
    assert plugin.budget_for(100_000) == 120_000


@pytest.mark.parametrize("tokens", [0, 1, 100, 1_000, 1_666])
def test_floor(tokens):
    plugin = ResultBudgetPlugin()
    assert plugin.budget_for(tokens) == 2_000
    assert run(plugin, "x" * 2_000, tokens=tokens) is None
    trimmed = run(plugin, "x" * 2_001, tokens=tokens)
    assert trimmed is not None and len(trimmed.content) <= 2_000


def test_floor_beats_the_tier():
    plugin = make(floor=20_000)
    assert plugin.budget_for(None) == 20_000
    assert plugin.budget_for(250_000) == 64_000
    assert make(floor=100_000).budget_for(250_000) == 100_000


def test_within_budget_returns_none_for_every_status():
    plugin = ResultBudgetPlugin()
    for status in ("ok", "error", "blocked", "denied"):
        assert run(plugin, "Tool call blocked by plugin policy", status=status) is None
        assert run(plugin, "", status=status) is None


def test_blocked_and_denied_trimmed_only_over_budget(tmp_path):
    plugin = make(tmp_path)
    for status in ("blocked", "denied", "error"):
        trimmed = run(plugin, "reason " * 5_000, status=status)
        assert trimmed is not None and trimmed.truncated and len(trimmed.content) <= 16_000


def test_non_string_content_is_left_alone():
    plugin = ResultBudgetPlugin()
    call = ToolCall(name="tool")
    assert plugin.after_tool_call(call, ToolResult("ok", None, None)) is None
    assert plugin.after_tool_call(call, ToolResult("ok", b"x", b"x" * 50_000)) is None


# -- trimming text ---------------------------------------------------------------------------


def test_exact_notice_without_artifact():
    plugin = make(store_artifacts=False)
    text = "a" * 20_000
    trimmed = run(plugin, text)
    assert trimmed is not None
    head = 16_000 - len("[... 20000 more characters truncated]") - 2
    assert trimmed.content == "a" * head + f"\n[... {20_000 - head} more characters truncated]"
    assert trimmed.artifact is None and trimmed.truncated is True
    assert not Path(".toolhooks").exists()


def test_exact_notice_with_artifact(tmp_path):
    plugin = make(tmp_path)
    text = "a" * 20_000
    trimmed = run(plugin, text)
    assert trimmed is not None
    ref = trimmed.artifact
    assert ref is not None and REF_RE.fullmatch(ref)
    assert ref == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    head = 16_000 - len(notice(20_000, ref, 20_000, summary=False)) - 2
    expected = (
        "a" * head + f"\n[... {20_000 - head} more characters truncated] [full result stored as "
        f"artifact {ref}; call read_artifact with this ref and offset={head} to read the "
        "omitted part]"
    )
    assert trimmed.content == expected
    assert len(trimmed.content) == 15_998  # room was reserved for N = 20000; N = 4220 is shorter


def test_head_only_when_tail_is_neutral(tmp_path):
    text = lines(2_000)
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None
    first, _, rest = trimmed.content.partition("\n[... ")
    assert text.startswith(first)
    assert rest.endswith("to read the omitted part]")  # nothing after the notice
    omitted = int(NOTICE_RE.search(trimmed.content).group(1))
    assert omitted == len(text) - len(first)


@pytest.mark.parametrize(
    "ending",
    [
        'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom',
        "error: linker command failed with exit code 1",
        "FATAL: out of memory",
        "==== 3 failed, 120 passed in 2.50s ====",
        "Summary: 14 files changed",
        "Total: 4012 rows",
        "Build finished.",
    ],
)
def test_tail_kept_when_it_looks_like_an_error_or_a_summary(tmp_path, ending):
    text = lines(2_000) + "\n" + ending
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None
    assert trimmed.content.endswith(ending)
    head, _, rest = trimmed.content.partition("\n[... ")
    tail = rest.split("\n", 1)[1]
    assert text.startswith(head) and text.endswith(tail)
    assert len(tail) > len(ending)  # the lines before the error come with it
    omitted = int(NOTICE_RE.search(trimmed.content).group(1))
    assert omitted == len(text) - len(head) - len(tail)
    assert len(trimmed.content) <= 16_000
    # The tail gets about tail_share of the room.
    assert 0.2 * 16_000 < len(tail) <= 0.3 * 16_000


def test_tail_patterns_only_searched_at_the_end(tmp_path):
    text = "ERROR at the start\n" + lines(2_000)
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None and trimmed.content.endswith("omitted part]")


def test_tail_settings(tmp_path):
    text = lines(2_000) + "\nError: boom"
    for config in ({"tail_share": 0}, {"tail_patterns": []}, {"tail_scan_chars": 0}):
        trimmed = run(make(tmp_path, **config), text)
        assert trimmed is not None and not trimmed.content.endswith("boom"), config
    custom = make(tmp_path, tail_patterns=[r"ALL DONE!"])
    assert run(custom, text).content.endswith("omitted part]")
    assert run(custom, lines(2_000) + "\nALL DONE!").content.endswith("ALL DONE!")
    wide = run(make(tmp_path, tail_share=0.5), text)
    assert wide is not None
    tail = wide.content.rsplit("]\n", 1)[1]
    assert len(tail) > 0.4 * 16_000


def test_tail_match_is_case_insensitive(tmp_path):
    trimmed = run(make(tmp_path), lines(2_000) + "\nsegmentation FAULT (core dumped)")
    assert trimmed is not None and trimmed.content.endswith("(core dumped)")


def test_newline_snapping(tmp_path):
    text = lines(2_000) + "\nError: boom"
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None
    head, _, rest = trimmed.content.partition("\n[... ")
    tail = rest.split("\n", 1)[1]
    assert text[len(head)] == "\n"  # the head ends where a line ends
    start = len(text) - len(tail)
    assert text[start - 1] == "\n"  # the tail starts where a line starts
    assert re.fullmatch(r"\d{7} .*", tail.split("\n", 1)[0])


def test_no_snapping_when_disabled_or_no_newline_is_near(tmp_path):
    room = 16_000 - len(notice(100_000, None, 100_000, summary=False)) - 2
    text = lines(2_000, width=50)
    exact = run(make(snap_chars=0, store_artifacts=False), text[:100_000])
    assert exact is not None and exact.content.startswith(text[:room] + "\n[... ")
    far = "x" * 10 + "\n" + "y" * 99_989
    cut = run(make(store_artifacts=False), far)
    assert cut is not None and cut.content.startswith(far[:room] + "\n[... ")


def test_crlf_snapping(tmp_path):
    text = "\r\n".join(f"{i:05d} {NEUTRAL}" for i in range(2_000))
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None
    head = trimmed.content.partition("\n[... ")[0]
    assert not head.endswith("\r") and text[len(head) : len(head) + 2] == "\r\n"


def test_notice_offset_points_at_the_omitted_part(tmp_path):
    text = lines(2_000) + "\nError: boom"
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None and trimmed.artifact is not None
    head = trimmed.content.partition("\n[... ")[0]
    offset = int(re.search(r"offset=(\d+)", trimmed.content).group(1))
    assert offset == len(head)
    assert read_artifact(trimmed.artifact, offset, 500) == text[offset : offset + 500]


def test_tiny_budget_still_gives_the_notice(tmp_path):
    plugin = make(tmp_path, floor=0, tiers=[{"min_tokens": 0, "max_chars": 50}])
    trimmed = run(plugin, "z" * 1_000)
    assert trimmed is not None
    assert NOTICE_RE.match(trimmed.content) and trimmed.artifact in trimmed.content


def test_input_is_not_changed(tmp_path):
    value = {"rows": list(range(10_000))}
    content = json.dumps(value)
    result = ToolResult("ok", value, content)
    make(tmp_path).after_tool_call(ToolCall(name="t"), result)
    assert result.content == content and value == {"rows": list(range(10_000))}


# -- JSON-like results -----------------------------------------------------------------------


def test_json_summary_keeps_keys_and_shortens_arrays(tmp_path):
    value = {
        "items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(1_000)],
        "count": 1_000,
        "next": None,
        "meta": {"page": 1, "sorted": True, "filters": {"q": "x"}},
    }
    content = json.dumps(value)
    trimmed = run(make(tmp_path), content, value)
    assert trimmed is not None and trimmed.truncated
    assert len(trimmed.content) <= 16_000
    summary = json.loads(summary_part(trimmed.content))
    assert list(summary) == ["items", "count", "next", "meta"]
    assert summary["meta"] == value["meta"]
    assert summary["count"] == 1_000 and summary["next"] is None
    kept = assert_shortened(summary["items"], value["items"])
    assert 5 < kept < 1_000
    assert len(trimmed.content) > 12_000  # json_fill: more items until the budget is used
    assert "the JSON above is a structural summary" in trimmed.content
    omitted = int(NOTICE_RE.search(trimmed.content).group(1))
    assert omitted == len(content) - len(summary_part(trimmed.content))
    assert "offset=0" in trimmed.content
    assert read_artifact(trimmed.artifact, 0, 10**9) == content


def test_json_fill_off_keeps_exactly_json_array_keep(tmp_path):
    value = {"items": [{"id": i, "tags": ["a", "b"]} for i in range(1_000)], "count": 1_000}
    trimmed = run(make(tmp_path, json_fill=False), json.dumps(value), value)
    summary = json.loads(summary_part(trimmed.content))
    assert summary["items"][:5] == value["items"][:5]
    assert summary["items"][5:] == ["... 995 more items (1000 total)"]
    assert len(trimmed.content) < 2_000


def test_json_summary_of_a_list_result(tmp_path):
    value = [[i, str(i)] for i in range(10_000)]
    filled = run(make(tmp_path), json.dumps(value), value)
    assert filled is not None and len(filled.content) <= 16_000
    assert assert_shortened(json.loads(summary_part(filled.content)), value) > 100
    trimmed = run(make(tmp_path, json_fill=False), json.dumps(value), value)
    assert trimmed is not None
    summary = json.loads(summary_part(trimmed.content))
    assert summary == [
        [0, "0"],
        [1, "1"],
        [2, "2"],
        [3, "3"],
        [4, "4"],
        "... 9995 more items (10000 total)",
    ]


def test_json_array_keep(tmp_path):
    value = {"xs": list(range(100_000))}
    trimmed = run(make(tmp_path, json_array_keep=2, json_fill=False), json.dumps(value), value)
    assert json.loads(summary_part(trimmed.content)) == {
        "xs": [0, 1, "... 99998 more items (100000 total)"]
    }
    none = run(make(tmp_path, json_array_keep=0, json_fill=False), json.dumps(value), value)
    assert json.loads(summary_part(none.content)) == {
        "xs": ["... 100000 more items (100000 total)"]
    }


def test_long_strings_are_shortened_with_a_count(tmp_path):
    value = {"a": "x" * 30_000, "b": "y" * 30_000, "code": 0}
    trimmed = run(make(tmp_path), json.dumps(value), value)
    assert trimmed is not None and len(trimmed.content) <= 16_000
    summary = json.loads(summary_part(trimmed.content))
    assert list(summary) == ["a", "b", "code"] and summary["code"] == 0
    for key, letter in (("a", "x"), ("b", "y")):
        match = re.fullmatch(rf"({letter}+)\.\.\. \(\+(\d+) chars\)", summary[key])
        assert match is not None
        assert len(match.group(1)) + int(match.group(2)) == 30_000
        # The room left is shared out: much more than json_string_keep is shown.
        assert len(match.group(1)) > 5_000


def test_json_text_result_is_parsed(tmp_path):
    value = {"rows": [{"n": i} for i in range(5_000)]}
    content = json.dumps(value)
    trimmed = run(make(tmp_path), content, content)  # the tool returned JSON text
    assert trimmed is not None
    assert_shortened(json.loads(summary_part(trimmed.content))["rows"], value["rows"])
    plain = run(make(tmp_path, json_parse_max_chars=0), content, content)
    assert plain is not None and plain.content.startswith(content[:1_000])
    assert "structural summary" not in plain.content


def test_json_text_too_long_or_invalid_is_cut_as_text(tmp_path):
    broken = "{" + '"k": 1, ' * 5_000
    trimmed = run(make(tmp_path), broken, broken)
    assert trimmed is not None and trimmed.content.startswith(broken[:1_000])
    value = {"rows": list(range(5_000))}
    content = json.dumps(value)
    limited = run(make(tmp_path, json_parse_max_chars=len(content) - 1), content, content)
    assert limited is not None and "structural summary" not in limited.content


def test_value_and_content_must_agree(tmp_path):
    value = {"rows": list(range(10_000))}
    rendered = "rows:\n" + "\n".join(str(i) for i in range(10_000))
    trimmed = run(make(tmp_path), rendered, value)  # a plugin rendered the dict as text
    assert trimmed is not None and trimmed.content.startswith("rows:\n0\n1\n")


def test_json_summary_disabled(tmp_path):
    value = {"rows": list(range(10_000))}
    content = json.dumps(value)
    trimmed = run(make(tmp_path, json_summary=False), content, value)
    assert trimmed is not None and trimmed.content.startswith(content[:1_000])


def test_value_nested_10000_levels(tmp_path):
    deep: dict[str, object] = {}
    node = deep
    for _ in range(10_000):
        node["a"] = {}
        node = node["a"]
    content = "{" + '"a": {' * 10_000 + "}" * 10_001
    trimmed = summarize_value(make(tmp_path), content, deep)
    assert len(trimmed) <= 16_000
    summary = json.loads(summary_part(trimmed))
    depth = 0
    while isinstance(summary, dict):
        summary = summary["a"]
        depth += 1
    assert depth == 20 and summary == "{... 1 keys}"
    nested_list: list[object] = []
    node_list = nested_list
    for _ in range(10_000):
        node_list.append([])
        node_list = node_list[0]
    trimmed = summarize_value(make(tmp_path), "[" * 10_000 + "]" * 10_000, nested_list)
    assert len(trimmed) <= 16_000 and "structural summary" in trimmed


def test_json_text_nested_10000_levels_falls_back_to_text(tmp_path):
    content = "[" * 10_000 + "]" * 10_000
    trimmed = run(make(tmp_path), content, content)
    assert trimmed is not None and trimmed.content.startswith("[" * 1_000)


def test_huge_sequences_and_mappings(tmp_path):
    plugin = make(tmp_path)
    huge = range(10**12)
    shown = json.loads(summary_part(summarize_value(plugin, "[" + "0, " * 10_000 + "]", huge)))
    kept = len(shown) - 1
    assert kept > 100 and shown[:kept] == list(range(kept))
    assert shown[kept] == f"... {10**12 - kept} more items ({10**12} total)"
    many = {f"key{i}": i for i in range(200_000)}
    trimmed = run(plugin, json.dumps(many), many)
    assert trimmed is not None and len(trimmed.content) <= 16_000
    summary = json.loads(summary_part(trimmed.content))
    shown = [key for key in summary if key != "..."]
    assert shown == [f"key{i}" for i in range(len(shown))] and len(shown) > 500
    assert summary["..."] == f"{200_000 - len(shown)} more keys"


def test_wide_and_deep_still_fit(tmp_path):
    value = [{f"k{j}": {"inner": ["v" * 300] * 5} for j in range(30)} for _ in range(30)]
    trimmed = run(make(tmp_path), json.dumps(value), value)
    assert trimmed is not None and len(trimmed.content) <= 16_000
    json.loads(summary_part(trimmed.content))  # still valid JSON


def test_odd_values_in_a_summary(tmp_path):
    class Thing:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    cyclic: list[object] = [1]
    cyclic.append(cyclic)
    value = {
        "bytes": b"\x00\xff" * 10,
        "set": {1},
        "tuple": (1, 2),
        "big": 10**5000,
        "nan": float("nan"),
        "when": datetime.date(2024, 1, 2),
        "thing": Thing(),
        "cycle": cyclic,
        1: "int key",
        None: "none key",
        (1, 2): "tuple key",
        "empty": {},
        "nothing": [],
        "pad": ["p" * 100] * 1_000,
    }
    text = summary_part(summarize_value(make(tmp_path), "{" + "x" * 50_000, value))
    assert '"bytes": "<bytes: 20 bytes>"' in text
    assert '"set": [1]' in text and '"tuple": [1, 2]' in text
    assert '"big": "<int of about 5000 digits>"' in text
    assert '"nan": NaN' in text and '"when": "2024-01-02"' in text
    assert '"thing": "<Thing>"' in text
    assert '"cycle": [\n    1,\n    "<cycle>"\n  ]' in text
    assert '"1": "int key"' in text and '"null": "none key"' in text
    assert '"<tuple>": "tuple key"' in text
    assert '"empty": {}' in text and '"nothing": []' in text


def test_summary_failure_falls_back_to_text(tmp_path):
    class Broken(dict):
        def __len__(self) -> int:
            raise RuntimeError("no len")

    content = "{" + "x" * 50_000
    trimmed = run(make(tmp_path), content, Broken(a=1))
    assert trimmed is not None and trimmed.content.startswith("{xxxx")


def test_summarize_is_iterative_and_bounded():
    deep: list[object] = []
    node = deep
    for _ in range(100_000):
        node.append([])
        node = node[0]
    cut = summarize(deep, 1_000, 5, 200, 200_000)
    assert not cut.complete and len(cut.text) < 200_000  # the open brackets are closed
    assert cut.text.count("[") == cut.text.count("]")
    assert len(structural_summary(list(range(10**6)), 500, 5, 200, 20)) < 500


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=300),
    lambda children: (
        st.lists(children, max_size=30)
        | st.dictionaries(st.text(max_size=20), children, max_size=30)
    ),
    max_leaves=300,
)


@settings(max_examples=100)
@given(json_values)
def test_summary_always_fits(value):
    plugin = make(store_artifacts=False, floor=0, tiers=[{"min_tokens": 0, "max_chars": 600}])
    content = json.dumps(value)
    trimmed = run(plugin, content, value)
    if len(content) <= 600:
        assert trimmed is None
        return
    assert trimmed is not None and trimmed.truncated
    assert len(trimmed.content) <= 600
    assert NOTICE_RE.search(trimmed.content)


# -- the artifact store ----------------------------------------------------------------------


def test_artifact_holds_the_full_text(tmp_path):
    text = lines(5_000) + "\nSummary: ok"
    trimmed = run(make(tmp_path), text)
    assert trimmed is not None and trimmed.artifact is not None
    path = tmp_path / "artifacts" / f"{trimmed.artifact[7:]}.txt"
    assert path.read_text(encoding="utf-8") == text
    assert read_artifact(trimmed.artifact, 0, len(text) + 10) == text


def test_default_artifact_dir_is_relative_to_the_working_directory(tmp_path):
    trimmed = run(ResultBudgetPlugin(), "q" * 20_000)
    assert trimmed is not None and trimmed.artifact is not None
    assert (tmp_path / ".toolhooks" / "artifacts" / f"{trimmed.artifact[7:]}.txt").is_file()


def test_store_is_idempotent_and_content_addressed(tmp_path):
    store = ArtifactStore(tmp_path / "s")
    assert not (tmp_path / "s").exists()  # made on first write
    one = store.put("hello")
    assert one == store.put("hello")
    assert one != store.put("hello!")
    assert one == "sha256:" + hashlib.sha256(b"hello").hexdigest()
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted(
        [f"{one[7:]}.txt", f"{parse_ref(store.put('hello!'))}.txt"]
    )
    assert store.exists(one) and store.path(one) == tmp_path / "s" / f"{one[7:]}.txt"
    assert store.read(one) == "hello"
    assert store.put("") == "sha256:" + hashlib.sha256(b"").hexdigest()
    assert store.read(store.put("")) == ""


@pytest.mark.parametrize(
    "text",
    [
        "ascii only " * 300_000,  # > one chunk
        "é☃😀 mixed " * 200_000,  # multi-byte characters across chunk boundaries
        "a" * ((1 << 20) - 1) + "😀" + "b" * 100,  # a 4-byte character split by the chunking
        "lone \ud800 surrogate \udfff kept",
    ],
    ids=["ascii", "multibyte", "split-by-chunk", "surrogates"],
)
def test_paging(tmp_path, text):
    store = ArtifactStore(tmp_path / "s")
    ref = store.put(text)
    total = len(text)
    for offset, limit in [(0, 1), (0, 8_000), (7, 13), ((1 << 20) - 3, 10), (total - 5, 100)]:
        if offset < 0 or offset >= total:
            continue
        assert store.read(ref, offset, limit) == text[offset : offset + limit]
        page = store.page(ref, offset, limit)
        assert page.total_chars == total and page.offset == offset
        end = offset + len(page.text)
        assert page.next_offset == (end if end < total else None)
    assert store.read(ref, total, 10) == ""
    assert store.read(ref, total + 1_000, 10) == ""
    assert store.page(ref, total + 1_000).next_offset is None
    assert store.read(ref, 0, total + 1) == text


@pytest.mark.parametrize(
    "text", ["plain ascii\n" * 200_000, "ünïcödé\n" * 200_000], ids=["ascii", "unicode"]
)
def test_paging_a_file_written_by_another_process(tmp_path, text):
    data = text.encode()
    digest = hashlib.sha256(data).hexdigest()
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / f"{digest}.txt").write_bytes(data)
    ref = f"sha256:{digest}"
    store = ArtifactStore(tmp_path / "s")
    for offset in (0, 5, 1 << 20, len(text) - 3):
        page = store.page(ref, offset, 100)
        assert page.text == text[offset : offset + 100] and page.total_chars == len(text)
        assert store.page(ref, offset, 100) == page  # again, now from what the scan learned


def test_next_offset_walks_the_whole_artifact(tmp_path):
    text = "é" * 50_123
    ref = ArtifactStore(tmp_path / "s").put(text)
    parts, offset = [], 0
    while True:
        page = read_artifact_page(ref, offset, 8_000, root=tmp_path / "s")
        parts.append(page.text)
        if page.next_offset is None:
            break
        offset = page.next_offset
    assert "".join(parts) == text and len(parts) == 7


BAD_REFS = [
    "",
    "sha256:",
    "sha256:" + "a" * 63,
    "sha256:" + "a" * 65,
    "sha256:" + "A" * 64,
    "sha256:" + "g" * 64,
    "SHA256:" + "a" * 64,
    "md5:" + "a" * 32,
    "a" * 64,
    "sha256:" + "a" * 64 + "\n",
    " sha256:" + "a" * 64,
    "sha256:" + "a" * 62 + "/.",
    "../../etc/passwd",
    "sha256:../../../etc/passwd",
    "/etc/passwd",
    "sha256:" + "a" * 64 + ".txt",
    None,
    123,
    b"sha256:" + b"a" * 64,
]


@pytest.mark.parametrize("ref", BAD_REFS)
def test_bad_refs_rejected(tmp_path, ref):
    store = ArtifactStore(tmp_path / "s")
    with pytest.raises(ValueError, match="invalid artifact reference"):
        read_artifact(ref)
    with pytest.raises(ValueError, match="invalid artifact reference"):
        read_artifact(ref, root=tmp_path / "s")
    with pytest.raises(ValueError, match="invalid artifact reference"):
        store.path(ref)
    with pytest.raises(ValueError, match="invalid artifact reference"):
        read_artifact_tool(ref)


def test_long_bad_ref_message_is_bounded():
    with pytest.raises(ValueError) as info:
        parse_ref("x" * 10_000)
    assert len(str(info.value)) < 200


def test_missing_artifact(tmp_path):
    ref = "sha256:" + "0" * 64
    with pytest.raises(ArtifactNotFoundError, match="no artifact"):
        read_artifact(ref, root=tmp_path)
    with pytest.raises(FileNotFoundError):
        read_artifact(ref)
    assert not ArtifactStore(tmp_path).exists(ref)


@pytest.mark.parametrize(
    ("offset", "limit", "message"),
    [(-1, 10, "offset must be >= 0"), (0, 0, "limit must be >= 1"), (0, -5, "limit"),
     (True, 10, "offset must be an integer"), ("3", 10, "offset"), (0, 2.5, "limit")],
)  # fmt: skip
def test_bad_offsets_rejected(tmp_path, offset, limit, message):
    ref = ArtifactStore(tmp_path / "s").put("text")
    with pytest.raises(ValueError, match=message):
        read_artifact(ref, offset, limit, root=tmp_path / "s")


def test_read_artifact_finds_a_configured_store(tmp_path):
    elsewhere = tmp_path / "custom" / "place"
    trimmed = run(make(artifact_dir=str(elsewhere)), "w" * 30_000)
    assert trimmed is not None and trimmed.artifact is not None
    assert read_artifact(trimmed.artifact, 10, 5) == "wwwww"  # no root given
    assert read_artifact_tool(trimmed.artifact, 0, 3).endswith("\nwww")


def test_relative_artifact_dir_is_fixed_at_construction(tmp_path, monkeypatch):
    plugin = make(artifact_dir="rel/dir")
    monkeypatch.chdir(tmp_path.parent)
    trimmed = run(plugin, "r" * 30_000)
    assert trimmed is not None and trimmed.artifact is not None
    assert (tmp_path / "rel" / "dir" / f"{trimmed.artifact[7:]}.txt").is_file()


def test_concurrent_writes(tmp_path):
    store = ArtifactStore(tmp_path / "s")
    texts = [f"text {i % 4} " * 50_000 for i in range(32)]
    refs: list[str | None] = [None] * len(texts)
    barrier = threading.Barrier(8)

    def work(worker: int) -> None:
        barrier.wait()
        for index in range(worker, len(texts), 8):
            refs[index] = store.put(texts[index])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for text, ref in zip(texts, refs, strict=True):
        assert ref is not None and store.read(ref, 0, 10**9) == text
    assert len(list((tmp_path / "s").iterdir())) == 4  # no temporary files left behind


def test_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    store = ArtifactStore(tmp_path / "s")

    def broken(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        store.put("something")
    assert list((tmp_path / "s").iterdir()) == []


def test_put_rejects_non_text(tmp_path):
    with pytest.raises(TypeError):
        ArtifactStore(tmp_path).put(b"bytes")


def test_unwritable_store_still_trims(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    plugin = make(artifact_dir=str(tmp_path / "file" / "artifacts"))
    trimmed = run(plugin, "u" * 30_000)
    assert trimmed is not None and trimmed.truncated is True and trimmed.artifact is None
    assert trimmed.content.endswith("more characters truncated]")
    assert len(trimmed.content) <= 16_000


def test_read_artifact_tool(tmp_path):
    text = "0123456789" * 5_000
    ref = ArtifactStore(tmp_path / "s").put(text)
    assert read_artifact_tool(ref, 100, 20) == (
        f"[artifact {ref}: characters 100-120 of 50000; 49880 more; next offset=120]\n"
        + text[100:120]
    )
    assert read_artifact_tool(ref, 49_990, 100) == (
        f"[artifact {ref}: characters 49990-50000 of 50000; end of artifact]\n" + text[49_990:]
    )
    assert read_artifact_tool(ref, 60_000) == (
        f"[artifact {ref}: offset 60000 is at or past the end (50000 characters)]"
    )
    clamped = read_artifact_tool(ref, 0, 10**6)
    assert clamped.endswith("\n" + text[:15_000]) and "next offset=15000" in clamped
    with pytest.raises(ValueError, match="limit"):
        read_artifact_tool(ref, 0, 0)
    signature = inspect.signature(read_artifact_tool)
    assert list(signature.parameters) == ["ref", "offset", "limit"]
    assert signature.parameters["offset"].default == 0
    assert signature.parameters["limit"].default == 8_000
    assert inspect.getdoc(read_artifact_tool)


def test_artifact_page_header_for_empty_text():
    page = ArtifactPage("sha256:" + "0" * 64, "", 0, 0, None)
    assert page.header().endswith("offset 0 is at or past the end (0 characters)]")


# -- large results ---------------------------------------------------------------------------


def test_20_mb_text_result(tmp_path):
    text = lines(330_000) + "\nERROR: something broke"
    assert len(text) > 19_000_000
    trimmed = run(make(tmp_path), text, tokens=150_000)
    assert trimmed is not None and trimmed.artifact is not None
    assert len(trimmed.content) <= 32_000 and trimmed.content.endswith("something broke")
    assert (tmp_path / "artifacts" / f"{trimmed.artifact[7:]}.txt").stat().st_size == len(text)
    assert read_artifact(trimmed.artifact, len(text) - 22, 100) == "ERROR: something broke"


def test_20_mb_json_result(tmp_path):
    value = {"rows": ["r" * 100] * 200_000, "status": "done"}
    content = json.dumps(value)
    assert len(content) > 20_000_000
    trimmed = run(make(tmp_path), content, value)
    assert trimmed is not None and len(trimmed.content) <= 16_000
    summary = json.loads(summary_part(trimmed.content))
    assert summary["status"] == "done"
    assert_shortened(summary["rows"], value["rows"])


def test_bytes_and_none_values(tmp_path):
    plugin = make(tmp_path)
    blob = b"\x89PNG" + b"\x00" * 50_000
    rendered = blob.decode("utf-8", errors="replace")
    trimmed = run(plugin, rendered, blob)
    assert trimmed is not None and trimmed.content.startswith("\ufffdPNG")
    assert run(plugin, "", None) is None
    trimmed = run(plugin, "n" * 20_000, None)
    assert trimmed is not None and trimmed.content.startswith("nnn")


# -- through a Runtime -----------------------------------------------------------------------


def runtime(tmp_path, *plugins, **config):
    config.setdefault("artifact_dir", str(tmp_path / "artifacts"))
    recorder = EventRecorder()
    rt = Runtime(
        plugins=[ResultBudgetPlugin(ResultBudgetConfig(**config)), recorder, *plugins],
        load_entrypoints=False,
    )

    @rt.tool
    def dump(rows: int, end: str = "") -> str:
        """Print rows."""
        return "\n".join(f"row {i} {NEUTRAL}" for i in range(rows)) + end

    @rt.tool
    def records(count: int) -> dict:
        """Return records."""
        return {"records": [{"id": i, "ok": True} for i in range(count)], "count": count}

    rt.add_tool(read_artifact_tool, name="read_artifact", tags=("read_only",))
    return rt, recorder


def test_runtime_trims_a_big_result(tmp_path):
    rt, recorder = runtime(tmp_path)
    outcome = rt.call({"name": "dump", "params": {"rows": 10_000}})
    full = "\n".join(f"row {i} {NEUTRAL}" for i in range(10_000))
    assert outcome.status == "ok" and outcome.truncated is True
    assert outcome.artifact is not None and REF_RE.fullmatch(outcome.artifact)
    assert len(outcome.content) <= 16_000
    assert outcome.artifact in outcome.content and NOTICE_RE.search(outcome.content)
    assert outcome.value == full  # the raw value is untouched
    assert read_artifact(outcome.artifact, 0, 10**9) == full
    trimmed = [dict(e.data) for e in recorder.of("result.trimmed")]
    assert trimmed == [
        {
            "original_chars": len(full),
            "kept_chars": len(outcome.content),
            "artifact": outcome.artifact,
            "budget": 16_000,
            "mode": "text",
        }
    ]
    (name,) = [
        p.name for p in rt.plugins() if isinstance(rt.get_plugin(p.name), ResultBudgetPlugin)
    ]
    assert [e.plugin for e in recorder.of("result.trimmed")] == [name]


def test_runtime_small_result_untouched(tmp_path):
    rt, recorder = runtime(tmp_path)
    outcome = rt.call({"name": "dump", "params": {"rows": 3}})
    assert outcome.truncated is False and outcome.artifact is None
    assert outcome.content == "\n".join(f"row {i} {NEUTRAL}" for i in range(3))
    assert not recorder.of("result.trimmed")
    assert not (tmp_path / "artifacts").exists()


def test_runtime_context_window_tiers(tmp_path):
    rt, _ = runtime(tmp_path)
    for tokens, cap in (
        (None, 16_000),
        (99_999, 16_000),
        (100_000, 32_000),
        (200_000, 64_000),
        (5_000, 6_000),
    ):
        outcome = rt.call(
            {"name": "dump", "params": {"rows": 20_000}, "context_window_tokens": tokens}
        )
        assert outcome.truncated and cap - 500 < len(outcome.content) <= cap, tokens


def test_runtime_error_tail(tmp_path):
    rt, _ = runtime(tmp_path)
    outcome = rt.call({"name": "dump", "params": {"rows": 10_000, "end": "\nError: disk full"}})
    assert outcome.content.endswith("Error: disk full") and outcome.truncated


def test_runtime_json_result(tmp_path):
    rt, recorder = runtime(tmp_path)
    outcome = rt.call({"name": "records", "params": {"count": 5_000}})
    assert outcome.truncated and outcome.artifact is not None
    summary = json.loads(summary_part(outcome.content))
    assert summary["count"] == 5_000
    assert_shortened(summary["records"], outcome.value["records"])
    assert json.loads(read_artifact(outcome.artifact, 0, 10**9)) == outcome.value
    assert [e.data["mode"] for e in recorder.of("result.trimmed")] == ["json"]


def test_runtime_read_artifact_tool(tmp_path):
    rt, _ = runtime(tmp_path)
    outcome = rt.call({"name": "dump", "params": {"rows": 10_000}})
    offset = int(re.search(r"offset=(\d+)", outcome.content).group(1))
    more = rt.call({"name": "read_artifact", "params": {"ref": outcome.artifact, "offset": offset}})
    assert more.status == "ok" and not more.truncated
    header, _, body = more.content.partition("\n")
    assert header.startswith(
        f"[artifact {outcome.artifact}: characters {offset}-{offset + 8_000} of"
    )
    assert body == outcome.value[offset : offset + 8_000]
    bad = rt.call({"name": "read_artifact", "params": {"ref": "../../etc/passwd"}})
    assert bad.status == "error" and "invalid artifact reference" in bad.content
    negative = rt.call({"name": "read_artifact", "params": {"ref": outcome.artifact, "offset": -1}})
    assert negative.status == "error" and "offset must be >= 0" in negative.content


def test_runtime_runs_last_after_other_rewrites(tmp_path):
    class Expander:
        @hookimpl
        def after_tool_call(self, result):
            return {"content": result.content + "\n" + "extra " * 5_000}

    rt, _ = runtime(tmp_path, Expander())
    outcome = rt.call({"name": "dump", "params": {"rows": 3}})
    assert outcome.truncated and len(outcome.content) <= 16_000
    assert read_artifact(outcome.artifact, 0, 10**9).endswith("extra ")


def test_runtime_blocked_call_reason_untouched(tmp_path):
    class Blocker:
        @hookimpl
        def before_tool_call(self):
            return {"block": True, "block_reason": "not today"}

    rt, recorder = runtime(tmp_path, Blocker())
    outcome = rt.call({"name": "dump", "params": {"rows": 10_000}})
    assert outcome.status == "blocked" and outcome.content == "not today"
    assert outcome.truncated is False and outcome.artifact is None
    assert not recorder.of("result.trimmed")


def test_runtime_store_failure_is_reported(tmp_path):
    (tmp_path / "file").write_text("x")
    rt, recorder = runtime(tmp_path, artifact_dir=str(tmp_path / "file" / "sub"))
    outcome = rt.call({"name": "dump", "params": {"rows": 10_000}})
    assert outcome.truncated is True and outcome.artifact is None
    (data,) = [dict(e.data) for e in recorder.of("result.trimmed")]
    assert data["artifact"] is None and "artifact_error" in data


def test_runtime_acall_and_threads(tmp_path):
    import asyncio

    rt, _ = runtime(tmp_path)

    async def many():
        return await asyncio.gather(
            *(rt.acall({"name": "dump", "params": {"rows": 5_000 + n}}) for n in range(20))
        )

    outcomes = asyncio.run(many())
    assert all(o.truncated and o.artifact and len(o.content) <= 16_000 for o in outcomes)
    assert len({o.artifact for o in outcomes}) == 20
    results: list[object] = []

    def work(n: int) -> None:
        results.append(rt.call({"name": "dump", "params": {"rows": 6_000 + n % 3}}))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({o.artifact for o in results}) == 3
    assert not [p for p in (tmp_path / "artifacts").iterdir() if p.suffix != ".txt"]


# -- a redaction by an earlier after hook stays redacted (issue #10 item 1) -------------------

SECRET = "sk-live-0123456789abcdef"


def test_summary_is_made_from_rewritten_content_not_the_raw_value(tmp_path):
    value = {"token": SECRET, "rows": [{"id": i, "note": NEUTRAL} for i in range(2_000)]}
    redacted = json.dumps(value).replace(SECRET, "[REDACTED]")
    trimmed = run(make(tmp_path), redacted, value)
    assert trimmed is not None and "structural summary" in trimmed.content
    assert SECRET not in trimmed.content
    assert json.loads(summary_part(trimmed.content))["token"] == "[REDACTED]"
    assert SECRET not in read_artifact(trimmed.artifact, 0, 10**9)


def test_redacted_text_that_is_not_json_is_cut_as_text(tmp_path):
    value = {"token": SECRET, "rows": list(range(10_000))}
    rewritten = "{token: [REDACTED]} " + "x" * 30_000  # no longer parses as JSON
    trimmed = run(make(tmp_path), rewritten, value)
    assert trimmed is not None and trimmed.content.startswith("{token: [REDACTED]} xxx")
    assert SECRET not in trimmed.content and "structural summary" not in trimmed.content


def test_runtime_redaction_never_comes_back_through_the_budget(tmp_path):
    class Redactor:
        @hookimpl
        def after_tool_call(self, result):
            return {"content": result.content.replace(SECRET, "[REDACTED]")}

    events: list[str] = []

    class Sink:
        @hookimpl
        def on_event(self, event):
            events.append(json.dumps(event.data, default=str))

    rt, _ = runtime(tmp_path, Redactor(), Sink())

    @rt.tool
    def account() -> dict:
        """The account, with its key."""
        return {"key": SECRET, "history": [{"id": i, "what": NEUTRAL} for i in range(2_000)]}

    outcome = rt.call({"name": "account"})
    assert outcome.status == "ok" and outcome.truncated is True
    assert "structural summary" in outcome.content
    assert json.loads(summary_part(outcome.content))["key"] == "[REDACTED]"
    assert SECRET not in outcome.content
    assert SECRET not in read_artifact(outcome.artifact, 0, 10**9)
    assert not [line for line in events if SECRET in line]
    untouched = rt.call({"name": "records", "params": {"count": 3_000}})  # no rewrite: value used
    assert json.loads(summary_part(untouched.content))["count"] == 3_000


# -- artifacts are never symlinks (issue #10 item 8) -------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="symlinks and O_NOFOLLOW are POSIX")
def test_a_symlink_at_an_artifact_path_is_replaced_not_written_through(tmp_path):
    store = ArtifactStore(tmp_path / "artifacts")
    text = "secret result " * 1_000
    digest = hashlib.sha256(text.encode()).hexdigest()
    victim = tmp_path / "bashrc"
    victim.write_text("alias ls='ls --color'\n")
    (tmp_path / "artifacts").mkdir()
    planted = tmp_path / "artifacts" / f"{digest}.txt"
    planted.symlink_to(victim)
    assert store.put(text) == f"sha256:{digest}"
    assert victim.read_text() == "alias ls='ls --color'\n"
    assert not planted.is_symlink() and planted.read_text() == text


@pytest.mark.skipif(os.name != "posix", reason="symlinks and O_NOFOLLOW are POSIX")
def test_a_symlink_at_an_artifact_path_is_never_read_through(tmp_path):
    root = tmp_path / "artifacts"
    root.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN PRIVATE KEY-----\n")
    ref = "sha256:" + "ab" * 32
    (root / f"{'ab' * 32}.txt").symlink_to(secret)
    store = ArtifactStore(root)
    assert store.exists(ref) is False
    with pytest.raises(ArtifactNotFoundError, match="is a symlink, not followed"):
        store.read(ref)
    with pytest.raises(ArtifactNotFoundError, match="no artifact"):
        read_artifact(ref)


# -- artifact retention (issue #10 item 12) ------------------------------------------------------


def test_retention_defaults_are_documented_values():
    config = ResultBudgetConfig()
    assert config.artifact_max_bytes == 1_000_000_000
    assert config.artifact_max_age_s == 604_800
    store = make(None).store
    assert store is not None
    assert (store.retention.max_bytes, store.retention.max_age_s) == (1_000_000_000, 604_800)


def artifact_files(root: Path) -> list[str]:
    return sorted(path.name for path in root.glob("*.txt"))


def test_size_limit_removes_the_oldest_first(tmp_path):
    root = tmp_path / "artifacts"
    store = ArtifactStore(root, max_bytes=25_000, max_age_s=0)
    refs = []
    for i in range(5):
        refs.append(store.put(f"{i}" * 10_000))
        path = store.path(refs[-1])
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # a clear age order
    # Each put checks the running total: 10_000 bytes each, 25_000 allowed: the newest two stay.
    assert artifact_files(root) == sorted(f"{ref[7:]}.txt" for ref in refs[3:])
    assert store.read(refs[4], 0, 5) == "44444"
    with pytest.raises(ArtifactNotFoundError):
        store.read(refs[0])


def test_storing_again_makes_an_artifact_the_newest(tmp_path):
    root = tmp_path / "artifacts"
    store = ArtifactStore(root, max_bytes=25_000, max_age_s=0)
    first = store.put("a" * 10_000)
    os.utime(store.path(first), (1_000, 1_000))
    second = store.put("b" * 10_000)
    os.utime(store.path(second), (2_000, 2_000))
    assert store.put("a" * 10_000) == first  # stored again: refreshed, not duplicated
    store.put("c" * 10_000)
    assert store.exists(first) and not store.exists(second)


def test_age_limit(tmp_path):
    root = tmp_path / "artifacts"
    store = ArtifactStore(root, max_bytes=0, max_age_s=3_600)
    old = store.put("old " * 1_000)
    fresh = store.put("fresh " * 1_000)
    hours_ago = time.time() - 2 * 3_600
    os.utime(store.path(old), (hours_ago, hours_ago))
    temp = root / ".tmp-dead.part"  # left by a writer that was killed
    temp.write_text("half")
    os.utime(temp, (hours_ago, hours_ago))
    assert store.prune() == 2
    assert not store.exists(old) and store.exists(fresh) and not temp.exists()


def test_a_single_artifact_over_the_limit_is_kept_until_the_next_one(tmp_path):
    root = tmp_path / "artifacts"
    store = ArtifactStore(root, max_bytes=1_000, max_age_s=0)
    big = store.put("x" * 5_000)
    assert store.exists(big)  # the one just written is never the one removed
    other = store.put("y" * 5_000)
    assert store.exists(other) and not store.exists(big)


def test_no_limits_keep_everything(tmp_path):
    root = tmp_path / "artifacts"
    store = ArtifactStore(root, max_bytes=0, max_age_s=0)
    refs = [store.put(f"{i}" * 5_000) for i in range(10)]
    assert store.prune() == 0 and all(store.exists(ref) for ref in refs)


def test_retention_through_the_plugin_config(tmp_path):
    plugin = make(tmp_path, artifact_max_bytes=30_000, artifact_max_age_s=0)
    refs = []
    for i in range(6):
        trimmed = run(plugin, f"row {i} " * 5_000)
        assert trimmed is not None and trimmed.artifact is not None
        refs.append(trimmed.artifact)
    # 30_000 bytes each with 30_000 allowed: every new artifact pushes out the one before.
    assert [ref for ref in refs if plugin.store is not None and plugin.store.exists(ref)] == [
        refs[-1]
    ]
    with pytest.raises(ValidationError, match="artifact_max_bytes"):
        ResultBudgetConfig(artifact_max_bytes=-1)


def test_the_budgets_exact_ratio_is_the_decimal_one_fractions_gives() -> None:
    import random
    from fractions import Fraction

    from toolhooks.plugins.result_budget._trim import decimal_ratio

    draw = random.Random(44)
    values: list[float] = [0.3, 4, 4.0, 0.1, 1e-05, 2.5e-7, 1.5e20, 0.0, 1, 3.3333333333333335]
    values += [draw.random() * 10 ** draw.randint(-12, 12) for _ in range(5000)]
    values += [draw.randint(1, 10**6) for _ in range(500)]
    for value in values:
        exact = Fraction(str(value))
        assert decimal_ratio(value) == (exact.numerator, exact.denominator), value
