"""Sphinx configuration for the toolhooks docs (``python -m sphinx -W docs docs/_build``)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "toolhooks"
author = "the toolhooks authors"
copyright = "the toolhooks authors"
release = metadata.version("toolhooks")
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc", "toolhooks_docs"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
# Quotes are code here ("block", "allow"): never curled.
smartquotes = False

# Headings get anchors, so the ``(#section)`` links inside text included from PLUGINS.md and
# README.md resolve within the page that includes it.
myst_heading_anchors = 4

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "exclude-members": "model_config, Config"}

html_theme = "alabaster"
html_title = "toolhooks"
# Wide enough for a 100-column code line (the project's line length) beside the sidebar.
html_theme_options = {
    "description": "A plugin pipeline between an AI agent's model and its tools",
    "page_width": "1240px",
    "sidebar_width": "240px",
}
