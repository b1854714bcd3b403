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

html_theme = "furo"
html_title = "toolhooks"
# Furo's own layout is responsive; only the code font is set, so a 100-column line (the project's
# line length) fits the content column on a laptop screen.
html_theme_options = {
    "light_css_variables": {"font-stack--monospace": "ui-monospace, Menlo, Consolas, monospace"},
}
