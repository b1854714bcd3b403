"""``toolhooks cedar ...``: registered on the core CLI through the ``toolhooks.commands`` group."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from toolhooks.cli import OK, UsageError, add_config_option, config_path

DESCRIPTION = """\
Cedar policies ([plugins.cedar] in toolhooks.toml), as the runtime loads them:
  schema  print the Cedar schema the policies are validated against (schema = "auto": built
          from the runtime's tools, the actions the policies name and the entities file)
  check   load the policies, validate them and run their examples; exit 1 on a problem"""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cedar",
        help="Cedar policies: print the schema they are validated against, check them",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(title="commands", dest="cedar_command", metavar="COMMAND")
    schema = commands.add_parser(
        "schema",
        help="print the Cedar schema (Cedar's JSON schema format; --cedar for its own syntax)",
    )
    schema.add_argument(
        "--cedar", action="store_true", help="print Cedar schema syntax instead of JSON"
    )
    add_config_option(schema)
    schema.set_defaults(func=run_schema)
    check = commands.add_parser(
        "check", help="load, validate and run the examples of the policies (exit 1 on a problem)"
    )
    add_config_option(check)
    check.set_defaults(func=run_check)
    parser.set_defaults(func=lambda args: _help(parser))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _plugin(args: argparse.Namespace) -> tuple[Any, Any]:
    from toolhooks import Runtime

    runtime = Runtime(config=config_path(args) or {})
    plugin = runtime.get_plugin("cedar")
    if plugin is None or not getattr(plugin, "active", False):
        runtime.close()
        raise UsageError(
            'no Cedar policies in the config: add [plugins.cedar] policies = ["policies/*.cedar"]'
        )
    return runtime, plugin


def run_schema(args: argparse.Namespace) -> int:
    import cedarpy

    runtime, plugin = _plugin(args)
    try:
        text = plugin.schema_text()
    finally:
        runtime.close()
    if text is None:
        raise UsageError('[plugins.cedar] schema = "none": the policies are not validated')
    if args.cedar:
        loaded = cedarpy.Schema.from_json_str(text) if text.lstrip().startswith("{") else None
        print(str(loaded) if loaded is not None else text.rstrip())
    elif text.lstrip().startswith("{"):
        print(json.dumps(json.loads(text), indent=2, sort_keys=True))
    else:
        print(text.rstrip())
    return OK


def run_check(args: argparse.Namespace) -> int:
    runtime, plugin = _plugin(args)
    try:
        data = plugin.data or plugin.load()
    finally:
        runtime.close()
    examples = sum(len(p.examples) for p in data.policies)
    files = len({p.file for p in data.policies})
    print(
        f"cedar: {len(data.policies)} policies in {files} file(s) loaded and validated; "
        f"{examples} example(s) pass"
    )
    return OK
