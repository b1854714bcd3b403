"""toolhooks.kit: what the built-in plugins use besides the hooks, for anyone's plugin.

The built-ins import nothing private of toolhooks: what they need beyond ``toolhooks`` itself
is here, so a third-party plugin can do all they do.

- Name patterns: :class:`Wildcards` and :func:`name_patterns` (``*`` matches any run of
  characters; the matcher behind ``hookimpl(tools=)`` and every list of tool or event names).
- JSON: :func:`canonical_json` (key-sorted text to hash: the same value gives the same text in
  every process), :func:`json_line` (the bytes of one log line), :func:`sanitize` (a copy any
  encoder takes), :func:`short_repr` (a bounded ``repr``) and :func:`render_content` (a tool's
  return value as the text the model reads).
- Shared state: :class:`SharedState` (the Redis of ``[state] url``, with its key prefix) and
  :class:`StateUnavailable` (raised when it cannot be reached: decide whether to fail closed).
- Lazy config: :class:`LazyConfig`, :class:`ConfigOnRead` and :func:`lazy_exports` keep a
  plugin's pydantic model unbuilt until a table is given or someone reads it.
- The logger: :class:`LazyLogger` (``logging`` imported only when something is really logged).
- Records: :class:`Record`, a frozen, slotted, keyword-only record that compiles nothing when
  its module is imported (a dataclass compiles its generated methods at every start), and
  :func:`dataclass_methods`, which gives a dataclass made with ``repr=False, eq=False`` the
  ``__repr__``, ``__eq__`` and ``__hash__`` ``@dataclass`` would have compiled (for a record
  users call ``dataclasses.replace`` or ``fields`` on).
- Processes: :func:`toolhooks_argv` (the command line that starts toolhooks with the folder it
  starts in kept off the import path: for an MCP client's config, a hook, a daemon).
- TOML text: :func:`toml_string` and :func:`toml_value` (config a person pastes, ASCII only,
  every control character escaped).
- Scanners (``toolhooks.scanning``): :func:`find_hidden_text`, :func:`find_secrets`,
  :func:`find_pii` and :func:`find_instructions` say what a text holds, each a list of
  :class:`Finding` (detector, kind, offsets, a digest; never the text found); :func:`redact`
  replaces findings with ``[redacted: <kind>]``. The ``scanners`` plugin runs them.
- The lock: :func:`read_lock_table` and :func:`write_lock_table` read and write an add-on's own
  table in ``toolhooks.lock`` (the MCP proxy pins its tools' definitions there).
- ``EXTERNAL_BLOCKED_TOOLS``: the tools a call of origin ``"external"`` never reaches, whatever
  config and plugins say (the core enforces it; a policy-like plugin can report it).
- Shell, path and host analysis (``toolhooks.analysis``): :func:`analyse_script` and
  :func:`analyse_argv` give a :class:`Script` of :class:`Command` s of :class:`Word` s, seen
  through quoting, wrappers and substitutions (opaque when it cannot be);
  :func:`command_paths`, :func:`command_hosts`, :func:`hosts_in_text`, :func:`normalise_path`
  and :func:`normalise_host` say what a command touches; :func:`clear_cache` forgets the
  analysed scripts; :func:`patch_files` the files a patch names; :func:`readings` reads an unknown program's command as a wrapper
  too (``gosu root rm -rf x``); :func:`value_options` names a program's options that take the next word
  (from the analysis' program tables).

Each name is imported when first used (PEP 562), as in ``toolhooks``: importing the kit costs a
plugin's start nothing it does not use.
"""

from __future__ import annotations

from toolhooks.config._lazy import lazy_exports as lazy_exports

# Read as True by type checkers (the facade's reason for not importing typing is the same).
TYPE_CHECKING = False

# Written as the facade writes its list: ``_EXPORTS`` is the list, these imports are the type
# checkers' copy (``X as X``: exported under strict mypy, which cannot read a computed
# ``__all__``), and tests/architecture/test_public_names.py proves they agree.
if TYPE_CHECKING:
    from toolhooks.analysis._analyse import analyse_argv as analyse_argv
    from toolhooks.analysis._analyse import analyse_script as analyse_script
    from toolhooks.analysis._analyse import clear_cache as clear_cache
    from toolhooks.analysis._hosts import command_hosts as command_hosts
    from toolhooks.analysis._hosts import hosts_in_text as hosts_in_text
    from toolhooks.analysis._hosts import normalise_host as normalise_host
    from toolhooks.analysis._patches import patch_files as patch_files
    from toolhooks.analysis._paths import command_paths as command_paths
    from toolhooks.analysis._paths import normalise_path as normalise_path
    from toolhooks.analysis._programs import value_options as value_options
    from toolhooks.analysis._readings import readings as readings
    from toolhooks.analysis._readings import reads_as_wrapper as reads_as_wrapper
    from toolhooks.analysis._records import Command as Command
    from toolhooks.analysis._records import Script as Script
    from toolhooks.analysis._records import Word as Word
    from toolhooks.config._lazy import ConfigOnRead as ConfigOnRead
    from toolhooks.config._lazy import LazyConfig as LazyConfig
    from toolhooks.kit._process import toolhooks_argv as toolhooks_argv
    from toolhooks.kit._toml import toml_string as toml_string
    from toolhooks.kit._toml import toml_value as toml_value
    from toolhooks.loading._lock_addons import read_lock_table as read_lock_table
    from toolhooks.loading._lock_addons import write_lock_table as write_lock_table
    from toolhooks.pipeline._render import render_content as render_content
    from toolhooks.pipeline._visibility import EXTERNAL_BLOCKED_TOOLS as EXTERNAL_BLOCKED_TOOLS
    from toolhooks.records._json import canonical_json as canonical_json
    from toolhooks.records._json import json_line as json_line
    from toolhooks.records._json import sanitize as sanitize
    from toolhooks.records._json import short_repr as short_repr
    from toolhooks.records._log import LazyLogger as LazyLogger
    from toolhooks.records._methods import dataclass_methods as dataclass_methods
    from toolhooks.records._plain import Record as Record
    from toolhooks.registry._names import Wildcards as Wildcards
    from toolhooks.registry._names import name_patterns as name_patterns
    from toolhooks.scanning._hidden import find_hidden_text as find_hidden_text
    from toolhooks.scanning._instructions import find_instructions as find_instructions
    from toolhooks.scanning._pii import find_pii as find_pii
    from toolhooks.scanning._records import Finding as Finding
    from toolhooks.scanning._records import redact as redact
    from toolhooks.scanning._secrets import find_secrets as find_secrets
    from toolhooks.stores._state import SharedState as SharedState
    from toolhooks.stores._state import StateUnavailable as StateUnavailable

# The module that defines each name.
_EXPORTS = {
    "analyse_argv": "toolhooks.analysis._analyse",
    "analyse_script": "toolhooks.analysis._analyse",
    "clear_cache": "toolhooks.analysis._analyse",
    "command_hosts": "toolhooks.analysis._hosts",
    "hosts_in_text": "toolhooks.analysis._hosts",
    "normalise_host": "toolhooks.analysis._hosts",
    "command_paths": "toolhooks.analysis._paths",
    "normalise_path": "toolhooks.analysis._paths",
    "patch_files": "toolhooks.analysis._patches",
    "value_options": "toolhooks.analysis._programs",
    "reads_as_wrapper": "toolhooks.analysis._readings",
    "readings": "toolhooks.analysis._readings",
    "Command": "toolhooks.analysis._records",
    "Script": "toolhooks.analysis._records",
    "Word": "toolhooks.analysis._records",
    "ConfigOnRead": "toolhooks.config._lazy",
    "LazyConfig": "toolhooks.config._lazy",
    "lazy_exports": "toolhooks.config._lazy",
    "toolhooks_argv": "toolhooks.kit._process",
    "toml_string": "toolhooks.kit._toml",
    "toml_value": "toolhooks.kit._toml",
    "read_lock_table": "toolhooks.loading._lock_addons",
    "write_lock_table": "toolhooks.loading._lock_addons",
    "render_content": "toolhooks.pipeline._render",
    "EXTERNAL_BLOCKED_TOOLS": "toolhooks.pipeline._visibility",
    "canonical_json": "toolhooks.records._json",
    "json_line": "toolhooks.records._json",
    "sanitize": "toolhooks.records._json",
    "short_repr": "toolhooks.records._json",
    "LazyLogger": "toolhooks.records._log",
    "dataclass_methods": "toolhooks.records._methods",
    "Record": "toolhooks.records._plain",
    "Wildcards": "toolhooks.registry._names",
    "name_patterns": "toolhooks.registry._names",
    "find_hidden_text": "toolhooks.scanning._hidden",
    "find_instructions": "toolhooks.scanning._instructions",
    "find_pii": "toolhooks.scanning._pii",
    "Finding": "toolhooks.scanning._records",
    "redact": "toolhooks.scanning._records",
    "find_secrets": "toolhooks.scanning._secrets",
    "SharedState": "toolhooks.stores._state",
    "StateUnavailable": "toolhooks.stores._state",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = sorted(_EXPORTS)
