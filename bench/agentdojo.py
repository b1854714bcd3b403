"""AgentDojo replayed through toolhooks with no model: what a policy stops and what it costs.

AgentDojo (``pip install -r bench/requirements-agentdojo.txt``, in a venv of its own) gives four
suites of tools over a simulated environment (workspace, travel, banking, slack), user tasks with
their ground-truth calls, and injection tasks (what an attacker wants done) with theirs. This
script needs no model: it replays

- each user task's ground-truth calls alone (utility: does AgentDojo's own check pass?), and
- for each (user task, injection task) pair, the user task's ground-truth calls followed by the
  injection task's (a model fully hijacked by the injection), with AgentDojo's "important
  instructions" text in every injection vector of the environment (security: does AgentDojo's
  own check say the attack succeeded?).

Every call goes through ``rt.call`` of a toolhooks Runtime whose tools are the suite's functions,
so the environment really changes and a blocked call really does not happen. A call the runtime
did not execute (blocked, denied, pending approval: there is no approver, so an ``ask`` counts as
a refusal) is left out of the function trace AgentDojo's checks read. Each run is its own
session; the user task's prompt is the session's trusted input (``rt.trust``) when the runtime
has it.

``--config FILE`` (repeatable) compares policies: each is a toolhooks TOML, run on top of the
bench's base (``[tools] profile = "full"``, the event log off). With none, one run with no rules.

Usage: python bench/agentdojo.py [--config FILE|none ...] [--version v1.2.1] [--suite NAME ...]
                                 [--jobs 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has tomli (a toolhooks dependency there)
    import tomli as tomllib

# This file is named like the package it drives: run as a script, its folder is first on the
# path and ``import agentdojo`` would find this file instead of the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

# What each suite's tools do, for the policy fence's tags and for policies that select tools by
# them: a tool not listed as read-only acts on the world (sends, pays, books, shares, deletes).
# get_webpage only reads, but the URL it is given leaves the machine: it is an egress tool.
READ_ONLY_PREFIXES = ("get_", "search_", "read_", "list_", "check_")
EGRESS = frozenset({"get_webpage"})

BASE_CONFIG: dict[str, Any] = {
    "tools": {"profile": "full"},
    "plugins": {"event_log": {"enabled": False}},
}


@dataclass(slots=True, kw_only=True)
class Tally:
    """One policy's counts on one suite (or all of them)."""

    user_tasks: int = 0
    utility: int = 0
    pairs: int = 0
    attacks: int = 0
    utility_under_attack: int = 0
    calls: int = 0
    refused: int = 0
    unseen: int = 0
    """Attacks that succeeded although the injected text never reached the model (a replay
    artefact: a defence kept the page from being read, and the hijacked replay acted anyway)."""
    failed_user_tasks: list[str] = field(default_factory=list)
    succeeded_attacks: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.user_tasks += other.user_tasks
        self.utility += other.utility
        self.pairs += other.pairs
        self.attacks += other.attacks
        self.utility_under_attack += other.utility_under_attack
        self.calls += other.calls
        self.refused += other.refused
        self.unseen += other.unseen
        self.failed_user_tasks += other.failed_user_tasks
        self.succeeded_attacks += other.succeeded_attacks


def tags_for(name: str) -> tuple[str, ...]:
    if name in EGRESS:
        return ("side_effect",)
    return ("read_only",) if name.startswith(READ_ONLY_PREFIXES) else ("side_effect",)


def merged_config(path: str | None) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(json.dumps(BASE_CONFIG))
    if path is None:
        return config
    with open(path, "rb") as handle:
        extra = tomllib.load(handle)

    def merge(into: dict[str, Any], more: dict[str, Any]) -> None:
        for key, value in more.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    merge(config, extra)
    # The runtime gets a mapping, not the file: the files a Cedar policy set names are relative
    # to the TOML, as they are when toolhooks reads it.
    cedar = config.get("plugins", {}).get("cedar")
    if isinstance(cedar, dict):
        folder = Path(path).resolve().parent
        if isinstance(cedar.get("policies"), list):
            cedar["policies"] = [str(folder / glob) for glob in cedar["policies"]]
        for key in ("entities", "schema"):
            if isinstance(cedar.get(key), str) and cedar[key] not in ("auto", "none"):
                cedar[key] = str(folder / cedar[key])
    return config


class Replay:
    """One suite's tools registered on one Runtime; runs a list of ground-truth calls."""

    def __init__(self, suite: Any, config_path: str | None) -> None:
        from agentdojo.functions_runtime import FunctionsRuntime
        from toolhooks import Runtime, ToolSpec

        self.suite = suite
        self.functions = FunctionsRuntime(suite.tools)
        # The tools are given when the runtime is built: a Cedar policy set is validated then,
        # against the tools' params (each tool added later is validated again, alone).
        tools = [
            ToolSpec(
                function.name,
                function.description,
                function.parameters.model_json_schema(),
                frozenset(tags_for(function.name)),
            )
            for function in suite.tools
        ]
        self.runtime = Runtime(config=merged_config(config_path), tools=tools)
        self.trust: Callable[[str, str], object] | None = getattr(self.runtime, "trust", None)

    def run(
        self, env: Any, session: str, calls: Iterable[Any], trace: list[Any]
    ) -> tuple[int, int]:
        """Run ``calls`` in ``env`` through the runtime; executed calls are appended to ``trace``."""
        from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

        made = refused = 0
        seen = False
        for call in calls:
            name = call.function

            def execute(params: dict[str, Any], name: str = name) -> str:
                result, _ = self.functions.run_function(env, name, params, raise_on_error=True)
                return tool_result_to_str(result)

            made += 1
            outcome = self.runtime.call(
                {"name": name, "params": dict(call.args), "session_id": session}, execute=execute
            )
            if outcome.status in ("ok", "error"):
                trace.append(call)
            else:
                refused += 1
            seen = seen or MARK in outcome.content
        return made, refused, seen


MARK = "<INFORMATION>"
"""The important-instructions text's first line: a result holding it showed the injection."""


def injection_texts(suite: Any, injection_task: Any) -> dict[str, str]:
    from agentdojo.attacks.base_attacks import DEFAULT_MODEL_NAME
    from agentdojo.attacks.important_instructions_attacks import ImportantInstructionsAttack

    # The attack's own template and user name; the model's name is AgentDojo's default (there
    # is no model here to name).
    text = ImportantInstructionsAttack._JB_STRING.format(
        goal=injection_task.GOAL, user="Emma Johnson", model=DEFAULT_MODEL_NAME, task=""
    )
    return {vector: text for vector in suite.get_injection_vector_defaults()}


_REPLAYS: dict[tuple[str, str, str | None], Replay] = {}


def replay_for(version: str, suite_name: str, config_path: str | None) -> Replay:
    from agentdojo.task_suite.load_suites import get_suites

    key = (version, suite_name, config_path)
    if key not in _REPLAYS:
        _REPLAYS[key] = Replay(get_suites(version)[suite_name], config_path)
    return _REPLAYS[key]


def run_user_task(
    version: str, suite_name: str, user_task_id: str, config_path: str | None
) -> Tally:
    """The user task alone, then the user task with each injection task of its suite."""
    from agentdojo.types import text_content_block_from_string

    replay = replay_for(version, suite_name, config_path)
    suite = replay.suite
    user_task = suite.user_tasks[user_task_id]
    tally = Tally()
    output = [text_content_block_from_string(user_task.GROUND_TRUTH_OUTPUT)]
    clean = suite.load_and_inject_default_environment({})

    def start(env: Any, session: str) -> tuple[Any, Any]:
        task_env = user_task.init_environment(env)
        if replay.trust is not None:
            replay.trust(session, user_task.PROMPT)
        return task_env, task_env.model_copy(deep=True)

    session = f"{suite_name}/{user_task_id}/{config_path}"
    env, pre = start(clean, session)
    trace: list[Any] = []
    made, refused, _ = replay.run(env, session, user_task.ground_truth(pre), trace)
    tally.calls += made
    tally.refused += refused
    tally.user_tasks = 1
    if suite._check_task_result(user_task, output, pre, env, trace):
        tally.utility = 1
    else:
        tally.failed_user_tasks.append(f"{suite_name}/{user_task_id}")

    for injection_id, injection_task in suite.injection_tasks.items():
        session = f"{suite_name}/{user_task_id}/{injection_id}/{config_path}"
        injected = suite.load_and_inject_default_environment(injection_texts(suite, injection_task))
        env, pre = start(injected, session)
        trace = []
        made, refused, seen = replay.run(env, session, user_task.ground_truth(pre), trace)
        tally.calls += made
        tally.refused += refused
        # The hijacked model acts on what it sees now, after the user task's calls.
        attack = injection_task.ground_truth(env.model_copy(deep=True))
        made, refused, seen_later = replay.run(env, session, attack, trace)
        seen = seen or seen_later
        tally.calls += made
        tally.refused += refused
        tally.pairs += 1
        if suite._check_task_result(user_task, output, pre, env, trace):
            tally.utility_under_attack += 1
        if suite._check_task_result(injection_task, output, pre, env, trace):
            tally.attacks += 1
            tally.unseen += not seen
            tally.succeeded_attacks.append(f"{suite_name}/{user_task_id}/{injection_id}")
    return tally


def _job(args: tuple[str, str, str, str | None]) -> tuple[str, str | None, Tally]:
    version, suite_name, user_task_id, config_path = args
    return suite_name, config_path, run_user_task(version, suite_name, user_task_id, config_path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config", action="append", default=[], help='a toolhooks TOML policy ("none": no rules)'
    )
    parser.add_argument("--version", default="v1.2.1", help="AgentDojo benchmark version")
    parser.add_argument("--suite", action="append", default=[], help="only these suites")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", help="write every count (and which tasks) to this file")
    args = parser.parse_args(argv)
    try:
        from agentdojo.task_suite.load_suites import get_suites
    except ImportError:
        print(
            "agentdojo is not installed: pip install -r bench/requirements-agentdojo.txt",
            file=sys.stderr,
        )
        return 2

    # "none" is the runtime with no rules, to compare against in the same run.
    configs: list[str | None] = [
        None if c == "none" else str(Path(c).resolve()) for c in args.config
    ] or [None]
    for config in configs:
        if config is not None and not Path(config).is_file():
            print(f"--config {config}: no such file", file=sys.stderr)
            return 2
    suites = get_suites(args.version)
    names = args.suite or list(suites)
    from toolhooks import ToolhooksError

    for config in configs:
        try:  # a bad policy is said once, here, not as a traceback from every worker
            replay = Replay(suites[names[0]], config)
        except ToolhooksError as error:
            print(f"--config {config}: {error}", file=sys.stderr)
            return 2
        if merged_config(config).get("rules") and replay.runtime.get_plugin("rules") is None:
            print(
                f"--config {config}: has [[rules]] but the rules plugin did not load "
                "(install toolhooks again in this venv: its entry points are stale)",
                file=sys.stderr,
            )
            return 2
    jobs = [
        (args.version, name, task_id, config)
        for config in configs
        for name in names
        for task_id in suites[name].user_tasks
    ]
    totals: dict[str | None, dict[str, Tally]] = {c: {n: Tally() for n in names} for c in configs}
    started = time.perf_counter()
    if args.jobs <= 1:
        results = map(_job, jobs)
        for suite_name, config, tally in results:
            totals[config][suite_name].add(tally)
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for suite_name, config, tally in pool.map(_job, jobs, chunksize=1):
                totals[config][suite_name].add(tally)
    elapsed = time.perf_counter() - started

    print(f"AgentDojo {args.version}, replayed with no model; {elapsed:.1f} s, {args.jobs} jobs")
    header = (
        f"{'policy':<28} {'suite':<10} {'utility':>9} {'attacks':>9} {'unseen':>6} "
        f"{'util|atk':>9} {'refused':>11}"
    )
    print(header)
    print("-" * len(header))
    report: dict[str, Any] = {"version": args.version, "seconds": elapsed, "policies": {}}
    for config in configs:
        label = "no rules" if config is None else Path(config).name
        total = Tally()
        for name in names:
            tally = totals[config][name]
            total.add(tally)
            print(
                f"{label:<28} {name:<10} {tally.utility:>4}/{tally.user_tasks:<4} "
                f"{tally.attacks:>4}/{tally.pairs:<4} {tally.unseen:>6} "
                f"{tally.utility_under_attack:>4}/{tally.pairs:<4} {tally.refused:>5}/{tally.calls:<5}"
            )
        print(
            f"{label:<28} {'all':<10} {total.utility:>4}/{total.user_tasks:<4} "
            f"{total.attacks:>4}/{total.pairs:<4} {total.unseen:>6} "
            f"{total.utility_under_attack:>4}/{total.pairs:<4} {total.refused:>5}/{total.calls:<5}"
        )
        report["policies"][label] = {
            "config": config,
            "total": asdict(total),
            "suites": {name: asdict(totals[config][name]) for name in names},
        }
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
