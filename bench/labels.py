"""The label store's ``from`` check: a call with 1 KB of params against 1 MB of labelled results.

Two rows per store: ``plain`` results (words, ids, mails, IBANs, URLs), and ``formatted``
results as people write values (IBANs in groups, "name at host dot com", defanged URLs, text
with zero-width characters), each 100 KB a JSON object, as a structured tool result is (issue
#40: read by its decoded strings). The session holds 1 MB of labelled result text (tokens
recorded, as ``rules`` records them) and
the user's prompt as trusted input. Each timed check is what a ``from`` condition costs: the
tokens of the call's params (``value_tokens``) and one ``provenance`` look-up. The params hold
no tainted token (the worst case: every token is looked up). Median of ``--rounds`` rounds of
``--checks`` checks, per store: memory, a SQLite file, Redis (skipped when unreachable). Two
floors are printed with them: ``value_tokens`` of the same params alone (what every store's check
pays before its look-up) and a bare Redis round trip (``PING`` with the same client: a Redis check
is one script call, so it cannot cost less).

Usage: python bench/labels.py [--url redis://127.0.0.1:6379/0] [--checks 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolhooks.stores import (
    LabelStore,
    MemoryLabelStore,
    RedisLabelStore,
    SQLiteLabelStore,
    result_tokens,
    text_tokens,
    value_tokens,
)
from toolhooks.stores._state import SharedState, StateUnavailable

WORDS = [
    "the",
    "invoice",
    "payment",
    "account",
    "transfer",
    "meeting",
    "schedule",
    "report",
    "balance",
    "note",
]
OTHER = [
    "our",
    "quarterly",
    "figures",
    "arrive",
    "tomorrow",
    "morning",
    "please",
    "review",
    "carefully",
]


def result_text(
    rng: random.Random, size: int, words: list[str] = WORDS, formatted: bool = False
) -> str:
    """About ``size`` characters that look like tool results: words, ids, mails, IBANs, URLs."""
    parts: list[str] = []
    length = 0
    while length < size:
        kind = rng.randrange(6)
        if kind == 0:
            part = f"user{rng.randrange(10**9)}@mail{rng.randrange(100)}.example"
        elif kind == 1:
            part = f"DE{rng.randrange(10**20):020d}"
        elif kind == 2:
            part = f"https://site{rng.randrange(1000)}.example/page/{rng.randrange(10**12)}"
        elif kind == 3:
            part = f"id-{rng.randrange(16**8):08x}"
        elif formatted and kind == 4:
            part = rng.choice(
                [
                    " ".join(f"{rng.randrange(10**4):04d}" for _ in range(5)),
                    f"user{rng.randrange(10**6)} at mail{rng.randrange(100)} dot com",
                    f"hxxps://site{rng.randrange(1000)}[.]example/x",
                    f"ref\u200b{rng.randrange(10**9)}",
                ]
            )
        else:
            part = rng.choice(words)
        parts.append(part)
        length += len(part) + 1
    return " ".join(parts)


def params_of(rng: random.Random, size: int) -> dict[str, Any]:
    """About ``size`` characters of params, nested, none of whose tokens a result holds (words
    of six letters or more are tokens too: the params use other words than the results)."""
    text = result_text(rng, size // 2, OTHER).replace("example", "elsewhere")
    return {
        "recipient": f"friend{rng.randrange(10**6)}@home.elsewhere",
        "subject": "quarterly figures",
        "body": text,
        "cc": [f"cc{rng.randrange(10**6)}@home.elsewhere" for _ in range(5)],
        "meta": {"amount": 1234.5, "ref": f"ref-{rng.randrange(10**9)}"},
        "attachments": [result_text(rng, size // 4, OTHER).replace("example", "elsewhere")],
    }


def measure(
    store: LabelStore, checks: int, rounds: int, formatted: bool = False
) -> tuple[float, int]:
    rng = random.Random(7)
    session = f"bench-{uuid.uuid4().hex[:8]}"
    result = result_text(rng, 1_000_000, formatted=formatted)
    tokens = text_tokens(result)
    # 1 MB recorded as 10 results of 100 KB, as a session would (formatted: each a JSON object).
    chunk = len(result) // 10
    for start in range(0, len(result), chunk):
        part = result[start : start + chunk]
        if formatted:
            lines = part.split(" ")
            text = json.dumps({"stdout": "\n".join(lines[::2]), "notes": " ".join(lines[1::2])})
            store.record(session, ["outside"], result_tokens(text))
        else:
            store.record(session, ["outside"], text_tokens(part))
    store.trust(session, text_tokens("Mail the quarterly figures to my friend, thanks"))
    params = [params_of(rng, 1024) for _ in range(50)]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for index in range(checks):
            found = store.provenance(session, value_tokens(params[index % 50]), ["outside"])
            if found is not None:
                raise SystemExit(f"unexpected hit: {found}")
        times.append((time.perf_counter() - started) / checks * 1e6)
    store.forget(session)
    return statistics.median(times), len(tokens)


def floor(operation: Callable[[int], object], checks: int, rounds: int) -> float:
    """Median over ``rounds`` of the time per call of ``operation`` (given the call's index)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for index in range(checks):
            operation(index)
        times.append((time.perf_counter() - started) / checks * 1e6)
    return statistics.median(times)


def round_trip(state: SharedState) -> Callable[[int], object]:
    """A bare Redis round trip with the store's own client."""
    client = state.client
    return lambda index: client.ping()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    sample = params_of(rng, 1024)
    print(
        f"params: {len(repr(sample))} chars, {len(value_tokens(sample))} tokens; "
        "results: 1,000,000 chars"
    )
    params = [params_of(rng, 1024) for _ in range(50)]
    micros = floor(lambda index: value_tokens(params[index % 50]), args.checks, args.rounds)
    print(f"{'tokens':<8} {'floor':<10} {micros:8.1f} us value_tokens of the params alone")
    with tempfile.TemporaryDirectory() as folder:
        stores: list[tuple[str, LabelStore]] = [
            ("memory", MemoryLabelStore()),
            ("sqlite", SQLiteLabelStore(Path(folder) / "labels.db")),
        ]
        state = SharedState(args.url, f"bench-{uuid.uuid4().hex[:8]}")
        stores.append(("redis", RedisLabelStore(state)))
        for name, store in stores:
            try:
                for formatted in (False, True):
                    micros, tokens = measure(store, args.checks, args.rounds, formatted)
                    row = "formatted" if formatted else "plain"
                    print(f"{name:<8} {row:<10} {micros:8.1f} us a from check ({tokens} tokens)")
                if name == "redis":
                    micros = floor(round_trip(state), args.checks, args.rounds)
                    print(f"{name:<8} {'floor':<10} {micros:8.1f} us a bare round trip (PING)")
            except StateUnavailable as exc:
                print(f"{name:<8} skipped: {exc}")
                continue
            store.close()
        state.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
