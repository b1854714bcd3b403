"""Golden-fixture tests of the agents that cannot run on this machine (issue #26)."""

from __future__ import annotations

import sys
from pathlib import Path

# fixture_cases sits next to this file; pytest's importlib mode does not put it on sys.path.
sys.path.insert(0, str(Path(__file__).parent))
