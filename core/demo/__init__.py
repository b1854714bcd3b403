"""Data for ``toolhooks demo``: ``transcript.jsonl`` (a coding agent's recorded tool calls, in
the replay format of ``toolhooks replay``) and ``toolhooks.toml`` (the config the demo runs on).

Read them with ``importlib.resources.files("toolhooks.demo")``.
"""
