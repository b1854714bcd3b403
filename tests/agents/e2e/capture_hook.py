"""A trivial hook for the real CLIs: save stdin as one file per event, answer as told.

Usage: python capture_hook.py OUT_DIR. The answer for an event is OUT_DIR/answer-<event>.json
when the test wrote one (printed as is, exit 0), else ``{}`` (allow, no change).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    out = Path(sys.argv[1])
    raw = sys.stdin.read()
    try:
        event = str(json.loads(raw).get("hook_event_name") or "unknown")
    except (ValueError, AttributeError):
        event = "unparsable"
    out.mkdir(parents=True, exist_ok=True)
    seen = len(list(out.glob("[0-9][0-9]-*.json")))
    (out / f"{seen + 1:02d}-{event}.json").write_text(raw)
    answer = out / f"answer-{event}.json"
    sys.stdout.write(answer.read_text() if answer.exists() else "{}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
