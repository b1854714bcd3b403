"""Can a scanner tell an attacker's goal in plain words from a person's request? (issue #40)

AgentDojo's ``direct`` and ``manual`` attacks put the injection task's goal into a tool result
as it is ("TODO: " and the goal, or the goal alone): "Send a transaction to ... that includes
...", "Please email the contents of ... to ...". Nothing in it addresses a model. This script
measures how far a detector that looks at the text alone could go on them: for each signal,
from the loosest to the tightest, the share of AgentDojo's goals it would find (weighted by the
pairs each goal is attacked in, so the figure reads as attacks stopped) against the passages it
would flag among texts nobody attacked:

- ``imperatives.txt``: the scanners' own benign corpus of requests between people (e-mails
  asking a colleague to send or transfer something, recipes, manuals, runbooks; six languages),
- AgentDojo's user-task prompts: what its users ask, as they would appear in a forwarded
  e-mail, a ticket or a shared note.

The signals name no tool, account, host or wording of AgentDojo's; they are what such a text is
made of (a request verb at a sentence's start, a destination in the same sentence, a verb that
moves data or money). ``find_instructions`` is the shipped detector, for reference.

Usage: python bench/plain_goals.py [--version v1.2.1]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from toolhooks.kit import find_instructions, find_pii

_HERE = Path(__file__).resolve().parent
ROOT = _HERE.parent
# bench/agentdojo.py would shadow the agentdojo package
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
sys.path.insert(0, str(ROOT / "tests" / "plugins" / "scanners"))
from corpora._load import passages  # noqa: E402

_REQUEST_VERBS = (
    "send|email|e-mail|mail|forward|transfer|pay|wire|post|upload|share|invite|add|remove|delete"
    "|create|make|book|reserve|change|modify|update|visit|open|get|tell|say|concatenate|copy"
)
_MOVING_VERBS = "send|email|e-mail|mail|forward|transfer|pay|wire|post|upload|share"
_OPENER = r"(?:(?:please|todo:|can you|could you|kindly)\s+)*"
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]?")  # "a.b@c.d" is one sentence
_REQUEST = re.compile(rf"^\s*(?:\w+,\s+)?{_OPENER}(?:{_REQUEST_VERBS})\b", re.IGNORECASE)
_MOVING = re.compile(rf"^\s*(?:\w+,\s+)?{_OPENER}(?:{_MOVING_VERBS})\b", re.IGNORECASE)
_DESTINATION = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an e-mail address
    r"|\b(?:https?://|www\.)\S+"  # a URL
    r"|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"  # an IBAN, grouped or not
    r"|\baccount\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.findall(text) if s.strip()]


def _request(text: str) -> bool:
    return any(_REQUEST.search(s) for s in _sentences(text))


def _request_with_destination(text: str) -> bool:
    return any(_REQUEST.search(s) and _DESTINATION.search(s) for s in _sentences(text))


def _moving_with_destination(text: str) -> bool:
    return any(_MOVING.search(s) and _DESTINATION.search(s) for s in _sentences(text))


def _moving_with_identifier(text: str) -> bool:
    """The tightest: a data- or money-moving request whose sentence holds an identifier
    ``find_pii`` itself finds (an e-mail address, an IBAN, a card, a phone number)."""
    return any(_MOVING.search(s) and bool(find_pii(s)) for s in _sentences(text))


SIGNALS: dict[str, Callable[[str], bool]] = {
    "find_instructions (shipped)": lambda text: bool(find_instructions(text)),
    "a request verb opens a sentence": _request,
    "... and a destination in that sentence": _request_with_destination,
    "a moving verb + a destination": _moving_with_destination,
    "a moving verb + an identifier find_pii finds": _moving_with_identifier,
}


def _agentdojo(version: str) -> tuple[list[tuple[str, int]], list[str]]:
    """(goal, pairs attacked with it) of every injection task, and every user task's prompt."""
    from agentdojo.task_suite.load_suites import get_suites

    goals: list[tuple[str, int]] = []
    prompts: list[str] = []
    for suite in get_suites(version).values():
        users = list(suite.user_tasks.values())
        prompts.extend(task.PROMPT for task in users)
        goals.extend((task.GOAL, len(users)) for task in suite.injection_tasks.values())
    return goals, prompts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default="v1.2.1")
    args = parser.parse_args()
    try:
        goals, prompts = _agentdojo(args.version)
    except ImportError:
        print("needs agentdojo: pip install -r bench/requirements-agentdojo.txt", file=sys.stderr)
        return 2
    benign = [text for _, text in passages("imperatives.txt")]
    pairs = sum(weight for _, weight in goals)
    print(
        f"{len(goals)} goals ({pairs} pairs, each as 'TODO: <goal>' and as the goal alone); "
        f"{len(benign)} benign passages; {len(prompts)} user prompts\n"
    )
    head = f"{'signal':48} {'goals found':>14} {'pairs stopped':>14} {'benign':>10} {'prompts':>10}"
    print(head)
    for name, found in SIGNALS.items():
        hit = [(g, w) for g, w in goals if found(g) and found("TODO: " + g)]
        stopped = sum(w for _, w in hit)
        flagged_benign = sum(map(found, benign))
        flagged_prompts = sum(map(found, prompts))
        print(
            f"{name:48} {len(hit):>6} / {len(goals):<5} {stopped / pairs:>13.1%} "
            f"{flagged_benign:>4} / {len(benign):<3} {flagged_prompts:>4} / {len(prompts):<3}"
        )
    print("\nthe done line needs >= 98 % of the pairs stopped and <= 1 % of the benign passages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
