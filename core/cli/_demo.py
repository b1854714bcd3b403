"""``toolhooks demo``: a coding agent's recorded session through the real pipeline, explained.

The built-ins (policy, rules, scanners, loop_detection, result_budget, event_log), the example plugin
``workspace_guard`` when ``toolhooks-example`` is installed, and ``push_review`` and
``change_window`` (defined here, demo only) run on the embedded config
``toolhooks/demo/toolhooks.toml``; the approver answers from the transcript
``toolhooks/demo/transcript.jsonl``: it allows, denies, edits, or defers a call that a later line
resumes. Nothing real runs: each call's recorded
result stands in for the tool. Files go to a fresh temporary folder, or ``--dir PATH``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import secrets
import shlex
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from ..config._settings import LoadedConfig, load_config, read_toml
from ..loading._entry_points import autoload_disabled, find_entry_points
from . import _table
from ._commands import help_of
from ._common import OK, print_json
from ._decisions import summarize
from ._demo_plugins import ChangeWindow, PushReview
from ._replay import replay
from ._transcript import Answers, read_transcript

DESCRIPTION = __doc__.split("\n\n", 1)[1] if __doc__ else None
INTRO = (
    "toolhooks demo: a coding agent's session, every call through the real pipeline\n"
    "(recorded results stand in for the tools; the approver answers from the transcript)"
)
EXAMPLE = "workspace_guard"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help=help_of("demo"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dir",
        metavar="PATH",
        type=Path,
        help="write the event log and artifacts here, e.g. .toolhooks/demo "
        "(default: a new temporary folder)",
    )
    parser.add_argument("--json", action="store_true", help="print the decisions as JSON")
    parser.set_defaults(func=run)


def example_state() -> tuple[str, str | None]:
    """How the example plugin takes part: "entry point", "registered" or "missing" (with why)."""
    if autoload_disabled():
        return "missing", "third-party autoload is disabled (TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD)"
    candidates, _ = find_entry_points()
    if any(c.name == EXAMPLE for c in candidates):
        return "entry point", None
    if importlib.util.find_spec("toolhooks_example") is not None:
        return "registered", None
    return (
        "missing",
        "toolhooks-example is not installed (pip install -e contrib/toolhooks-example)",
    )


def demo_toml() -> dict[str, Any]:
    """The embedded ``toolhooks/demo/toolhooks.toml``, parsed."""
    source = resources.files("toolhooks.demo").joinpath("toolhooks.toml")
    with resources.as_file(source) as path:
        return read_toml(Path(path))


def demo_config(folder: Path, example: str) -> LoadedConfig:
    """The embedded config with its paths placed in ``folder``."""
    data = demo_toml()
    tables = data["plugins"]
    tables["event_log"]["path"] = str(folder / tables["event_log"]["path"])
    tables["result_budget"]["artifact_dir"] = str(folder / tables["result_budget"]["artifact_dir"])
    if example != "entry point":
        tables.pop(EXAMPLE)  # registered: built from this table by example_plugin()
    if example == "missing":  # `only` may not name a plugin that is not there
        tables["only"] = [name for name in tables["only"] if name != EXAMPLE]
    return load_config(data)


def example_plugin() -> Any:
    """``toolhooks_example.WorkspaceGuard`` built from the demo config, named like its entry point."""
    table = demo_toml()["plugins"][EXAMPLE]
    guard_class = importlib.import_module("toolhooks_example").WorkspaceGuard
    guard = guard_class(guard_class.Config.model_validate(table))
    guard.name = EXAMPLE
    return guard


def _near(folder: Path) -> Path:
    """``folder`` as the user can type it here: relative when it is under the working folder
    (``--dir .toolhooks/demo``), else absolute (a temporary folder)."""
    try:
        return folder.relative_to(Path.cwd())
    except ValueError:
        return folder


def _quoted(path: Path) -> str:
    return shlex.quote(str(path))


def describe_call(tool: str, params: dict[str, Any]) -> str:
    """``exec rm -rf build/`` - the tool and its main argument, as a person would type it."""
    for key in ("command", "path", "query", "to", "action"):
        value = params.get(key)
        if isinstance(value, str):
            more = (
                [v for k, v in params.items() if k != key and isinstance(v, str)]
                if key == "action"
                else []
            )
            return " ".join([tool, value, *more])
    return f"{tool} {' '.join(f'{k}={shlex.quote(str(v))}' for k, v in params.items())}".rstrip()


def run(args: argparse.Namespace) -> int:
    folder = (args.dir or Path(tempfile.mkdtemp(prefix="toolhooks-demo-"))).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    example, missing = example_state()
    config = demo_config(folder, example)
    plugins: list[Any] = [PushReview, ChangeWindow]
    if example == "registered":
        plugins.append(example_plugin())
    text = (
        resources.files("toolhooks.demo").joinpath("transcript.jsonl").read_text(encoding="utf-8")
    )
    transcript = read_transcript(text.splitlines(), prefix=f"demo-{secrets.token_hex(3)}")
    answers = Answers(by="the demo's approver")
    decisions, recorder = replay(config, transcript, answers, plugins)
    log = folder / "events.jsonl"
    shown = _near(folder)
    if args.json:
        print_json(
            {
                "folder": str(folder),
                "event_log": str(log),
                "events": recorder.total,
                "example_plugin": example,
                "calls": [d.to_dict() for d in decisions],
            }
        )
        return OK
    for line in INTRO.splitlines():  # each wrapped on its own: a newline would show as " / "
        print(_table.paragraph(line))
    print()
    guard = "workspace_guard > " if example != "missing" else ""
    chain = f"policy > rules > loop_detection > scanners > {guard}push_review (demo) > "
    said = next((line.user for line in transcript.lines if line.user is not None), None)
    print(
        _table.pairs(
            [
                ("plugins", chain + "change_window (demo) > result_budget"),
                ("events", "event_log writes every event of every call to a JSONL file"),
                (
                    "config",
                    'profile "coding"; five [[rules]] (a few of the starter policy\'s, two for '
                    "provenance); scanners label hidden text; loop warning at 3 repeats, block "
                    "at 5; results over 2,500 chars trimmed",
                ),
                *([("user", f'"{said}" (trusted input: its values may be used)')] if said else []),
            ]
        )
    )
    if missing:
        print(f"note     {EXAMPLE} is not part of this run: {missing}")
    print()
    lines = {line.number: line for line in transcript.lines}
    calls = {n: lines[line.resume] if line.resume else line for n, line in lines.items()}
    rows = [
        [d.index, describe_call(d.tool, calls[d.line].call.get("params") or {}), d.label]
        for d in decisions
    ]
    print(
        _table.render(
            ["#", "CALL", "DECISION"],
            rows,
            align=["right"],
            max_width=46,
            flex=[1],
            status=[2],
            notes=[d.detail_lines for d in decisions],
        )
    )
    summary = summarize(decisions)  # a paused call and the line resuming it: one call
    print()
    print(
        f"{summary['calls']} calls: "
        + ", ".join(f"{n} {s}" for s, n in summary["by_status"].items())
    )
    print()
    print(
        _table.pairs(
            [
                ("event log", f"{shown / 'events.jsonl'} ({recorder.total} events)"),
                ("follow it", f"toolhooks logs --file {_quoted(shown / 'events.jsonl')} --follow"),
                (
                    "one call",
                    f"toolhooks logs --file {_quoted(shown / 'events.jsonl')} "
                    f"--call {decisions[-1].call_id}",
                ),
                ("artifacts", str(shown / "artifacts")),
            ]
        )
    )
    return OK
