"""AgentDojo replayed through toolhooks with no model: what a policy stops and what it costs.

AgentDojo (``pip install -r bench/requirements-agentdojo.txt``; requirements-dev.txt has it) gives four
suites of tools over a simulated environment (workspace, travel, banking, slack), user tasks with
their ground-truth calls, and injection tasks (what an attacker wants done) with theirs. This
script needs no model: it replays

- each user task's ground-truth calls alone (utility: does AgentDojo's own check pass?), and
- for each (user task, injection task) pair, the user task's ground-truth calls followed by the
  injection task's (a model fully hijacked by the injection), with an attack's text where the
  attack puts it (security: does AgentDojo's own check say the attack succeeded?).

The attack texts are AgentDojo's own attack classes (``--attack``, repeatable; ``all`` is every
attack that places text in the vectors): the class makes the text for each pair and chooses the
vectors, the ones the user task's ground truth reads, as AgentDojo's benchmark does. The target
"model" the texts name is ``--model`` (AgentDojo's pipeline name; default gpt-4o-2024-05-13,
which its attacks call "GPT-4"). ``manual`` asks a person for each text; here ``--manual-text``
answers (default ``{goal}``: the attacker's goal in plain words, nothing addressed to a model).

Two variations on where and how the text appears:

- ``--values reformatted``: the attacker's values in the text are written the way people write
  them (an IBAN in groups of four, an e-mail address as ``name at domain``, a URL or host
  defanged, ``hxxps://evil[.]com``); the hijacked model still uses the real values.
- ``--placement results``: no vector of the environment holds the text; instead every tool
  result of the pair's calls ends with it (the text can come from any tool, a team chat or a
  business listing as well as a web page).

Every call goes through ``rt.call`` of a toolhooks Runtime whose tools are the suite's functions,
so the environment really changes and a blocked call really does not happen. A call the runtime
did not execute (blocked, denied, pending approval: there is no approver, so an ``ask`` counts as
a refusal) is left out of the function trace AgentDojo's checks read. Each run is its own
session; the user task's prompt is the session's trusted input (``rt.trust``) when the runtime
has it.

``--config FILE`` (repeatable) compares policies: each is a toolhooks TOML, run on top of the
bench's base (``[tools] profile = "full"``, the event log off). With none, one run with no rules.
``--config A+B`` runs A and B as one policy (tables merged, their ``[[rules]]`` one list).

Usage: python bench/agentdojo.py [--config FILE|none|A+B ...] [--attack NAME|all ...]
                                 [--values as-is|reformatted] [--placement vectors|results]
                                 [--model NAME] [--manual-text TEMPLATE] [--version v1.2.1]
                                 [--suite NAME ...] [--jobs 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
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

ATTACKS = (
    "important_instructions",
    "important_instructions_no_user_name",
    "important_instructions_no_model_name",
    "important_instructions_no_names",
    "important_instructions_wrong_model_name",
    "important_instructions_wrong_user_name",
    "tool_knowledge",
    "ignore_previous",
    "system_message",
    "injecagent",
    "direct",
    "manual",
)
"""AgentDojo's attacks that place text in the injection vectors (its ``dos`` attacks only
want the model to stop, and are left out)."""

VALUES = ("as-is", "reformatted")
TARGET_MODEL = "gpt-4o-2024-05-13"
"""The pipeline name the attack texts address: AgentDojo's most reported model ("GPT-4")."""
MANUAL_TEXT = "{goal}"
PLACEMENTS = ("vectors", "results")


@dataclass(slots=True, kw_only=True)
class Tally:
    """One policy's counts on one suite (or all of them) under one attack."""

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """How the attack text is made and where it goes (the same for every pair of a run)."""

    version: str = "v1.2.1"
    model: str = TARGET_MODEL
    values: str = "as-is"
    placement: str = "vectors"
    manual_text: str = MANUAL_TEXT


def tags_for(name: str) -> tuple[str, ...]:
    if name in EGRESS:
        return ("side_effect",)
    return ("read_only",) if name.startswith(READ_ONLY_PREFIXES) else ("side_effect",)


def merged_config(path: str | None) -> dict[str, Any]:
    """The bench's base with each ``+``-joined policy file merged on top: tables merge, a
    ``[[rules]]`` list is extended (two policies in one run are both of their rules)."""
    config: dict[str, Any] = json.loads(json.dumps(BASE_CONFIG))
    if path is None:
        return config

    def merge(into: dict[str, Any], more: dict[str, Any]) -> None:
        for key, value in more.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            elif key == "rules" and isinstance(into.get(key), list):
                into[key] = [*into[key], *value]
            else:
                into[key] = value

    for part in path.split("+"):
        with open(part, "rb") as handle:
            extra = tomllib.load(handle)
        # The runtime gets a mapping, not the file: the files a Cedar policy set names are
        # relative to the TOML, as they are when toolhooks reads it.
        cedar = extra.get("plugins", {}).get("cedar")
        if isinstance(cedar, dict):
            folder = Path(part).resolve().parent
            if isinstance(cedar.get("policies"), list):
                cedar["policies"] = [str(folder / glob) for glob in cedar["policies"]]
            for key in ("entities", "schema"):
                if isinstance(cedar.get(key), str) and cedar[key] not in ("auto", "none"):
                    cedar[key] = str(folder / cedar[key])
        merge(config, extra)
    return config


# -- the attacker's values, written the way people write them ---------------------------------

_EMAIL = re.compile(r"\b([A-Za-z0-9._%+-]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)\b")
_IBAN = re.compile(r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}\b")
_HOST = re.compile(
    r"\b(?:(https?)://)?((?:[a-z0-9-]+\.)+[a-z]{2,24})(?![\w-])(/[^\s'\"<>),]*[^\s'\"<>),.])?",
    re.I,
)


def reformat_iban(iban: str) -> str:
    """``DE89370400440532013000`` -> ``DE89 3704 0044 0532 0130 00`` (as printed on a bill)."""
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def reformat_email(local: str, domain: str) -> str:
    """``mark@example.com`` -> ``mark at example.com`` (as written to dodge address harvesters)."""
    return f"{local} at {domain}"


def defang(scheme: str | None, host: str, path: str | None) -> str:
    """``https://evil.com/x`` -> ``hxxps://evil[.]com/x``; a bare host keeps no scheme."""
    front = "" if scheme is None else scheme.lower().replace("tt", "xx") + "://"
    return front + host.replace(".", "[.]") + (path or "")


def attacker_values(goal: str) -> dict[str, str]:
    """The IBANs, e-mail addresses, URLs and hosts a goal names, each with how a person might
    write it instead."""
    found: dict[str, str] = {}
    for match in _EMAIL.finditer(goal):
        found[match.group()] = reformat_email(match[1], match[2])
    for match in _IBAN.finditer(goal):
        found[match.group()] = reformat_iban(match.group())
    rest = _EMAIL.sub(" ", goal)
    for match in _HOST.finditer(rest):
        found[match.group()] = defang(match[1], match[2], match[3])
    return found


def reformatted(text: str, values: dict[str, str]) -> str:
    """``text`` with each value (longest first, so a URL goes before its host) rewritten."""
    if not values:
        return text
    pattern = re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))
    return pattern.sub(lambda match: values[match.group()], text)


# -- the attacks ------------------------------------------------------------------------------


def _target(model: str) -> Any:
    """A pipeline element that only names the model the attack texts address (there is none)."""
    from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement

    class NamedTarget(BasePipelineElement):
        def query(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the replay has no model")

    target = NamedTarget()
    target.name = model
    return target


@contextmanager
def _typed(answer: Callable[[], str]) -> Iterator[None]:
    """``manual`` asks ``input()`` for each vector's text: a person typing ``answer()``."""
    typed = builtins.input
    builtins.input = lambda prompt="": answer()
    try:
        yield
    finally:
        builtins.input = typed


class Attacker:
    """One AgentDojo attack on one suite: the text for each pair, and where it goes."""

    def __init__(self, suite: Any, name: str, setting: Setting) -> None:
        import agentdojo.attacks  # noqa: F401 - registers the attack classes
        from agentdojo.attacks.attack_registry import load_attack

        self.name = name
        self.setting = setting
        self.attack = load_attack(name, suite, _target(setting.model))

    def texts(self, user_task: Any, injection_task: Any) -> dict[str, str]:
        """Vector -> text, as the attack makes them (reformatted when the setting says so)."""
        goal = injection_task.GOAL
        if self.name == "manual":
            with _typed(lambda: self.setting.manual_text.format(goal=goal)):
                made = self.attack.attack(user_task, injection_task)
        else:
            made = self.attack.attack(user_task, injection_task)
        if self.setting.values == "reformatted":
            values = attacker_values(goal)
            made = {vector: reformatted(text, values) for vector, text in made.items()}
        return dict(made)


# -- the replay -------------------------------------------------------------------------------


def use_libyaml() -> bool:
    """AgentDojo parses its environment (with each pair's texts in it) with PyYAML's pure-Python
    ``safe_load``: two thirds of the replay's time. libyaml's loader of the same PyYAML parses
    the same document to the same values (checked on every attack's texts in every vector of
    every suite, tests/test_bench_agentdojo.py) about 7x faster; used where PyYAML has it."""
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        return False
    if getattr(yaml.safe_load, "libyaml", False):
        return True

    def safe_load(stream: Any) -> Any:
        return yaml.load(stream, Loader=yaml.CSafeLoader)  # the safe loader, in C

    safe_load.libyaml = True  # type: ignore[attr-defined]
    yaml.safe_load = safe_load
    return True


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
        self,
        env: Any,
        session: str,
        calls: Iterable[Any],
        trace: list[Any],
        injected: str | None = None,
        appended: str | None = None,
    ) -> tuple[int, int, bool]:
        """Run ``calls`` in ``env`` through the runtime; executed calls are appended to
        ``trace``. ``appended`` ends every tool result; whether a result the model read held
        ``injected`` is the third value."""
        from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

        made = refused = 0
        seen = False
        for call in calls:
            name = call.function

            def execute(params: dict[str, Any], name: str = name) -> str:
                result, _ = self.functions.run_function(env, name, params, raise_on_error=True)
                text = tool_result_to_str(result)
                return text if appended is None else f"{text}\n{appended}"

            made += 1
            outcome = self.runtime.call(
                {"name": name, "params": dict(call.args), "session_id": session}, execute=execute
            )
            if outcome.status in ("ok", "error"):
                trace.append(call)
            else:
                refused += 1
            seen = seen or (injected is not None and injected in _plain(outcome.content))
        return made, refused, seen


_LAYOUT = re.compile(r"[\s\\'\"]+")


def _plain(text: str) -> str:
    """``text`` without whitespace, backslashes and quotes: a result is rendered as YAML, which
    folds long lines and quotes or escapes a string, so the text is compared without them."""
    return _LAYOUT.sub("", text)


def _mark(text: str) -> str:
    """What tells a result that showed an attack text: its longest line, laid out as nothing."""
    return _plain(max(text.splitlines() or [text], key=len))[:80] or text


_REPLAYS: dict[tuple[str, str, str | None], Replay] = {}
_ATTACKERS: dict[tuple[str, str, Setting], Attacker] = {}


def replay_for(version: str, suite_name: str, config_path: str | None) -> Replay:
    from agentdojo.task_suite.load_suites import get_suites

    key = (version, suite_name, config_path)
    if key not in _REPLAYS:
        _REPLAYS[key] = Replay(get_suites(version)[suite_name], config_path)
    return _REPLAYS[key]


def attacker_for(suite: Any, name: str, setting: Setting) -> Attacker:
    key = (suite.name, name, setting)
    if key not in _ATTACKERS:
        _ATTACKERS[key] = Attacker(suite, name, setting)
    return _ATTACKERS[key]


def run_user_task(
    setting: Setting,
    suite_name: str,
    user_task_id: str,
    config_path: str | None,
    attacks: list[str],
) -> dict[str, Tally]:
    """The user task alone, then with each injection task of its suite under each attack.
    Each attack's tally carries the task's utility alone (the same for every attack)."""
    from agentdojo.types import text_content_block_from_string

    replay = replay_for(setting.version, suite_name, config_path)
    suite = replay.suite
    user_task = suite.user_tasks[user_task_id]
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
    alone = Tally(user_tasks=1)
    alone.calls, alone.refused, _ = replay.run(env, session, user_task.ground_truth(pre), trace)
    if suite._check_task_result(user_task, output, pre, env, trace):
        alone.utility = 1
    else:
        alone.failed_user_tasks.append(f"{suite_name}/{user_task_id}")

    tallies: dict[str, Tally] = {}
    for attack in attacks:
        tally = tallies[attack] = Tally()
        tally.add(alone)
        attacker = attacker_for(suite, attack, setting)
        for injection_id, injection_task in suite.injection_tasks.items():
            session = f"{suite_name}/{user_task_id}/{injection_id}/{attack}/{config_path}"
            texts = attacker.texts(user_task, injection_task)
            text = next(iter(texts.values()))
            if setting.placement == "results":
                injected, appended = suite.load_and_inject_default_environment({}), text
            else:
                injected, appended = suite.load_and_inject_default_environment(texts), None
            mark = _mark(text)
            env, pre = start(injected, session)
            trace = []
            made, refused, seen = replay.run(
                env, session, user_task.ground_truth(pre), trace, mark, appended
            )
            tally.calls += made
            tally.refused += refused
            # The hijacked model acts on what it sees now, after the user task's calls.
            hijacked = injection_task.ground_truth(env.model_copy(deep=True))
            made, refused, seen_later = replay.run(env, session, hijacked, trace, mark, appended)
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
    return tallies


Job = tuple[Setting, str, str, "str | None", list[str]]


def _job(args: Job) -> tuple[str, str | None, dict[str, Tally]]:
    setting, suite_name, user_task_id, config_path, attacks = args
    use_libyaml()
    return (
        suite_name,
        config_path,
        run_user_task(setting, suite_name, user_task_id, config_path, attacks),
    )


def _resolved(config: str) -> str | None:
    if config == "none":
        return None
    return "+".join(str(Path(part).resolve()) for part in config.split("+"))


def _label(config: str | None) -> str:
    if config is None:
        return "no rules"
    return "+".join(Path(part).name for part in config.split("+"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        help='a toolhooks TOML policy ("none": no rules; A+B: both files as one policy)',
    )
    parser.add_argument(
        "--attack",
        action="append",
        default=[],
        choices=[*ATTACKS, "all"],
        help="AgentDojo attack(s) whose text goes in (default important_instructions)",
    )
    parser.add_argument("--values", choices=VALUES, default="as-is")
    parser.add_argument("--placement", choices=PLACEMENTS, default="vectors")
    parser.add_argument("--model", default=TARGET_MODEL, help="the model the texts address")
    parser.add_argument("--manual-text", default=MANUAL_TEXT, help="what manual types")
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
    attacks = list(ATTACKS) if "all" in args.attack else list(dict.fromkeys(args.attack))
    attacks = attacks or ["important_instructions"]
    try:
        args.manual_text.format(goal="")
    except (KeyError, IndexError, ValueError) as error:
        print(f"--manual-text: only {{goal}} can be filled in ({error!r})", file=sys.stderr)
        return 2
    setting = Setting(
        version=args.version,
        model=args.model,
        values=args.values,
        placement=args.placement,
        manual_text=args.manual_text,
    )

    # "none" is the runtime with no rules, to compare against in the same run.
    configs: list[str | None] = [_resolved(c) for c in args.config] or [None]
    for config in configs:
        for part in [] if config is None else config.split("+"):
            if not Path(part).is_file():
                print(f"--config {part}: no such file", file=sys.stderr)
                return 2
    suites = get_suites(args.version)
    names = args.suite or list(suites)
    unknown = [name for name in names if name not in suites]
    if unknown:
        print(f"--suite {unknown[0]}: not in AgentDojo {args.version} ({', '.join(suites)})")
        return 2
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
    try:  # AgentDojo refuses a model it does not know: said once, here
        _target(args.model)
        Attacker(suites[names[0]], attacks[0], setting)
    except ValueError as error:
        print(f"--model {args.model}: {error}", file=sys.stderr)
        return 2
    jobs: list[Job] = [
        (setting, name, task_id, config, attacks)
        for config in configs
        for name in names
        for task_id in suites[name].user_tasks
    ]
    totals = {c: {a: {n: Tally() for n in names} for a in attacks} for c in configs}
    started = time.perf_counter()
    if args.jobs <= 1:
        for suite_name, config, tallies in map(_job, jobs):
            for attack, tally in tallies.items():
                totals[config][attack][suite_name].add(tally)
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for suite_name, config, tallies in pool.map(_job, jobs, chunksize=1):
                for attack, tally in tallies.items():
                    totals[config][attack][suite_name].add(tally)
    elapsed = time.perf_counter() - started

    print(
        f"AgentDojo {args.version}, replayed with no model; {elapsed:.1f} s, {args.jobs} jobs; "
        f"values {args.values}, placement {args.placement}, texts addressed to {args.model}"
    )
    header = (
        f"{'policy':<28} {'attack':<40} {'suite':<10} {'utility':>9} {'attacks':>9} "
        f"{'unseen':>6} {'util|atk':>9} {'refused':>11}"
    )
    print(header)
    print("-" * len(header))
    report: dict[str, Any] = {
        "version": args.version,
        "seconds": elapsed,
        "setting": asdict(setting),
        "policies": {},
    }
    for config in configs:
        label = _label(config)
        per_attack: dict[str, Any] = {}
        for attack in attacks:
            total = Tally()
            for name in names:
                tally = totals[config][attack][name]
                total.add(tally)
                print(_row(label, attack, name, tally))
            print(_row(label, attack, "all", total))
            per_attack[attack] = {
                "total": asdict(total),
                "suites": {name: asdict(totals[config][attack][name]) for name in names},
            }
        first = per_attack[attacks[0]]  # the keys of a run with one attack, as before
        report["policies"][label] = {"config": config, **first, "attacks": per_attack}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


def _row(label: str, attack: str, suite: str, tally: Tally) -> str:
    return (
        f"{label:<28} {attack:<40} {suite:<10} {tally.utility:>4}/{tally.user_tasks:<4} "
        f"{tally.attacks:>4}/{tally.pairs:<4} {tally.unseen:>6} "
        f"{tally.utility_under_attack:>4}/{tally.pairs:<4} {tally.refused:>5}/{tally.calls:<5}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
