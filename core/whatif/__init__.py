"""``toolhooks whatif``: what a config would have decided about the calls an event log recorded.

Each recorded call is rebuilt from the log (tool, params as proposed, sender, session, agent,
origin), run through a runtime of the config with nothing real running (the recorded result
stands in for the tool), and the decision it gets now is compared with the one it got then::

    from toolhooks import load_config
    from toolhooks.whatif import whatif

    tally = whatif([".toolhooks/events.jsonl"], load_config("stricter.toml"),
                   on_result=lambda r: r.changed and print(r.call_id, r.before.label, "->",
                                                           r.after.label))
"""

from ..events._calls import RecordedCall, rebuilt
from ._compare import Result, Selection, Tally, WhatIf, compare, whatif
from ._decision import ChainAnswer, Change, changes, decision_of
from ._rehearsal import Rehearsal
from ._sources import NoLog, Reading, Skipped, log_groups

__all__ = [
    "ChainAnswer",
    "Change",
    "NoLog",
    "Reading",
    "RecordedCall",
    "Rehearsal",
    "Result",
    "Selection",
    "Skipped",
    "Tally",
    "WhatIf",
    "changes",
    "compare",
    "decision_of",
    "log_groups",
    "rebuilt",
    "whatif",
]
