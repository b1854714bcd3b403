"""How toolhooks starts a Python process of its own (the daemon, a hook an agent runs, the MCP
proxy a client starts), so that the folder it starts in (a cloned project) is never on the import
path.

``python -m toolhooks`` puts its working folder first on ``sys.path`` and then imports
``runpy`` from the path: a ``runpy.py``, a ``pydantic.py`` or a ``*.dist-info`` plugin planted in a
project would run inside the daemon. ``-P`` (Python 3.11+) stops the working folder being put
first, but not a ``$PYTHONPATH`` of ``.`` (made absolute by Python) and does not exist on 3.10.
So the process runs a ``-c`` bootstrap that drops every relative entry and the working folder
itself from ``sys.path`` before anything is imported from it; ``-P`` is added where it exists.
``$PYTHONPATH``'s other entries and the user's site-packages are kept (``-I`` would drop them):
the process must import the same toolhooks and plugins as the one starting it. See
docs/decisions/agents-import-path.md.

Stdlib only: the hook client imports this module when it starts a daemon (not through the
kit's ``__init__``, whose imports it does not need).
"""

from __future__ import annotations

import sys

from .._public import public

BOOTSTRAP = """\
import os, sys
try:
    here = os.path.realpath(os.getcwd())
except OSError:
    here = None
sys.path[:] = [p for p in sys.path if p and os.path.isabs(p) and os.path.realpath(p) != here]
from toolhooks._main import main
sys.argv[0] = "toolhooks"
raise SystemExit(main())
"""
"""The ``-c`` program: no import from the path happens before the path is cleaned."""


def toolhooks_argv(*args: str) -> list[str]:
    """The argv that runs ``toolhooks ARGS...`` with this interpreter and no relative entry
    (the working folder) on its import path: use it for every command line that starts
    toolhooks (a daemon, a hook an agent runs, a server a client starts), never
    ``python -m toolhooks``, which imports from the folder it starts in."""
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe, "-c", BOOTSTRAP, *args]


public("toolhooks.kit", toolhooks_argv)
