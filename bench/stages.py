"""Item 2 with some of the pipeline's per-call stages made free: what each costs the default row.

``python bench/stages.py [STAGE,...]`` runs ``bench/run.py --only 2`` in this process after
patching the named stages out of toolhooks (default: all five). Each stage is a documented
behaviour, not overhead: the numbers say what item 2's ratio would be without it (BENCHMARKS.md,
"Issue #33", "Why item 2's 3.0x is not met, measured"). The raw-pluggy rows use none of these
stages, so only toolhooks' rows move. A measurement, never a configuration.

- ``adjusted``: ``Runtime.adjusted_params``' memory (the last 4,096 calls' final params);
- ``quiet``: the ``quiet`` list of ``tool.injected`` (its entries become the handler's template);
- ``digest``: ``tool.finished``'s result digest (a constant);
- ``visibility``: the ``tool_visible`` chain;
- ``validate``: validating params against the tool's schema.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Any

from toolhooks.pipeline import _adjusted, _conclude, _invoke, _screen, _tools
from toolhooks.registry import _registry

STAGES = ("adjusted", "quiet", "digest", "visibility", "validate")
HERE = os.path.dirname(os.path.abspath(__file__))


def make_free(stages: list[str]) -> None:
    """Patch each named stage out of this process's toolhooks."""
    if "adjusted" in stages:
        _adjusted.AdjustedParams.remember = lambda self, call_id, params, changed: None
    if "quiet" in stages:
        _invoke.quiet_entry = _conclude.quiet_entry = _screen.quiet_entry = _free_quiet_entry
    if "digest" in stages:
        _conclude.result_digest = lambda content: "0:00000000"
    if "visibility" in stages:
        chain = _registry.Registry.chain

        def without_visibility(self: Any, hook: str, tool: str | None = None) -> Any:
            return () if hook == "tool_visible" else chain(self, hook, tool)

        _registry.Registry.chain = without_visibility
    if "validate" in stages:
        _tools.Tool.validate = lambda self, params: (params, params)


def _free_quiet_entry(handler: Any, _started: float) -> Any:
    return handler.quiet


def main(argv: list[str]) -> None:
    stages = argv[0].split(",") if argv else list(STAGES)
    unknown = sorted(set(stages) - set(STAGES) - {"none"})
    if unknown:
        raise SystemExit(f"unknown stage(s) {', '.join(unknown)}; known: {', '.join(STAGES)}")
    make_free(stages)
    print(f"stages made free: {', '.join(stages)}")
    sys.argv = [os.path.join(HERE, "run.py"), "--only", "2"]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
