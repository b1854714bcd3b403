"""``toolhooks test [PATH...]``: run policy test cases (``*.cases.toml``), pytest-style."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

from ._commands import help_of
from ._common import OK, PROBLEMS, add_config_option, read_config
from ._table import clean

DESCRIPTION = """\
Run the policy test cases in PATH (files, or folders searched for *.cases.toml; default: this
folder). Each case is a call (or a sequence of calls) and the decision it must get under the
config: "ok", "blocked", "approval", "denied", or a table such as {blocked_by = "policy"},
{params = {path = "/ws/a"}}, {warning = "loop"}. A failure shows the call's decision trail, every
before_tool_call handler's answer in order. Exit 1 when a case fails. Nothing real runs: a case's
result text stands in for the tool, approvals are deferred, never asked, and as with `toolhooks
whatif`, nothing reaches the configured event log, shared state, approval store or artifact
folder."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "test",
        help=help_of("test"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", metavar="PATH", nargs="*", help="case files or folders")
    add_config_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..testing._cases import find_case_files, load_cases, run_case

    files = find_case_files(args.paths or ["."])
    if not files:
        print(f"toolhooks test: no *.cases.toml under {', '.join(args.paths or ['.'])}",
              file=sys.stderr)  # fmt: skip
        return PROBLEMS
    config = read_config(args)
    failures = []
    passed = 0
    for name in files:
        cases = load_cases(name)
        marks = []
        for case in cases:
            result = run_case(case, config)
            marks.append("." if result.problem is None else "F")
            if result.problem is None:
                passed += 1
            else:
                failures.append(result)
        print(f"{clean(name)} {''.join(marks)}")
    for result in failures:
        case = result.case
        print(f"\nFAILED {clean(case.where)} {clean(case.name)}: {clean(result.problem)}")
        for step in _trail_of(case, config)["steps"]:
            print(f"  {step['priority']:>6}  {clean(step['plugin'])}: {clean(step['answer'])}")
    summary = f"{passed} passed" + (f", {len(failures)} failed" if failures else "")
    print(f"\n{summary}")
    return OK if not failures else PROBLEMS


def _trail_of(case: Any, config: Any) -> dict[str, Any]:
    """The failed case's last call's decision trail, on a runtime as offline as the case's."""
    from ..runtime._offline import offline_runtime
    from ..testing._cases import case_config
    from ._trail import trail

    with tempfile.TemporaryDirectory(prefix="toolhooks-test-") as artifacts:
        runtime = offline_runtime(case_config(case, config), artifacts=artifacts)
        try:
            return trail(runtime, dict(case.calls[-1]))
        finally:
            runtime.close()
