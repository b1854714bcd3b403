"""``[plugins.result_budget] max_chars``: one key for a fixed cap (issue #10 item 27)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolhooks import ConfigError, Runtime


def _runtime(tmp_path: Path, table: dict[str, object]) -> Runtime:
    config = {
        "plugins": {
            "only": ["result_budget"],
            "result_budget": {**table, "artifact_dir": str(tmp_path / "artifacts")},
        }
    }
    return Runtime(config=config)


@pytest.mark.parametrize("window", [None, 1_000, 100_000, 1_000_000])
def test_max_chars_is_the_cap_whatever_the_context_window(
    tmp_path: Path, window: int | None
) -> None:
    rt = _runtime(tmp_path, {"max_chars": 3_000})
    rt.add_tool(lambda: "line of text\n" * 1_000, name="dump")
    outcome = rt.call({"name": "dump", "context_window_tokens": window})
    assert outcome.truncated is True
    kept = outcome.content.split("\n[... ")[0]
    assert 2_000 < len(kept) <= 3_000
    rt.close()
    other = _runtime(tmp_path, {"max_chars": 3_000})
    assert other.get_plugin("result_budget").budget_for(window) == 3_000
    other.close()


def test_a_result_under_max_chars_is_untouched_even_below_the_default_floor(tmp_path: Path) -> None:
    rt = _runtime(tmp_path, {"max_chars": 500})
    rt.add_tool(lambda: "x" * 400, name="short")
    rt.add_tool(lambda: "x" * 900, name="long")
    assert rt.call({"name": "short"}).content == "x" * 400
    long = rt.call({"name": "long"})
    assert long.truncated is True and long.content.startswith("x" * 100)
    assert rt.get_plugin("result_budget").budget_for(None) == 500
    rt.close()


@pytest.mark.parametrize("other", ["tiers", "floor", "context_share", "chars_per_token"])
def test_max_chars_is_given_alone(tmp_path: Path, other: str) -> None:
    values = {"tiers": [{"min_tokens": 0, "max_chars": 9}], "floor": 10,
              "context_share": 0.5, "chars_per_token": 3.0}  # fmt: skip
    with pytest.raises(ConfigError) as raised:
        _runtime(tmp_path, {"max_chars": 3_000, other: values[other]})
    assert (
        "max_chars is a fixed cap and replaces tiers, floor, context_share, chars_per_token; "
        f"remove {other} or max_chars"
    ) in str(raised.value)


@pytest.mark.parametrize(("value", "problem"), [(0, "greater than or equal to 1"),
                                                ("5000", "a valid integer")])  # fmt: skip
def test_a_bad_max_chars_is_a_config_error(tmp_path: Path, value: object, problem: str) -> None:
    with pytest.raises(
        ConfigError, match=f"plugins.result_budget.max_chars: Input should be {problem}"
    ):
        _runtime(tmp_path, {"max_chars": value})
