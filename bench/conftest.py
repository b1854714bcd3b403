"""``pytest bench/ --benchmark-only``: make the bench modules importable as run.py sees them."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
