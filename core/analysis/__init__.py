"""The shell, path and host analysis the rules (and any plugin) reason with: a script's simple
commands seen through quoting, wrappers and substitutions (tree-sitter-bash, loaded on first
use), the paths and hosts each names. A script it cannot see through is opaque. Just above
records (its internal records derive from ``records``' ``Record``): it imports nothing else of
toolhooks.
"""

from ._analyse import analyse_argv, analyse_script, clear_cache
from ._hosts import command_hosts, hosts_in_text, normalise_host
from ._landing import EXTRACTING_PROGRAMS, LANDING_PROGRAMS, Landing, command_landing
from ._listed import LISTING_PROGRAMS, list_sources
from ._patches import patch_files
from ._paths import command_paths, normalise_path, real_path
from ._programs import value_options
from ._readings import readings, reads_as_wrapper
from ._records import Command, Script, Word

__all__ = [
    "EXTRACTING_PROGRAMS",
    "LANDING_PROGRAMS",
    "LISTING_PROGRAMS",
    "Command",
    "Landing",
    "Script",
    "Word",
    "analyse_argv",
    "analyse_script",
    "clear_cache",
    "command_hosts",
    "command_landing",
    "command_paths",
    "hosts_in_text",
    "list_sources",
    "normalise_host",
    "normalise_path",
    "patch_files",
    "readings",
    "reads_as_wrapper",
    "real_path",
    "value_options",
]
