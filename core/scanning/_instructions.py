"""``instructions``: text that addresses the model or agent and tells it what to do.

No model runs here: the detector reads words. A finding needs one of
- an override of the model's instructions ("ignore all previous instructions", "du bist jetzt");
- an address to the model ("Dear AI", "if you are an LLM", ``<INFORMATION>``, "to you, GPT-4")
  with something it is told to do near it;
- three different things only an agent is asked about: its task ("before you solve the task I
  gave you"), its tools, its user ("do not tell the user"), its reply, its context, or sending
  something to an address.
A recipe, a manual, an e-mail to a colleague, a code comment or a README tells a person what to
do: none of these addresses a model, and their imperatives are not about an agent's task,
tools or user.

Speed: the text is split into words once; a category's patterns run only in the stretches
around its own words, and a text holding none of the words that could make a finding costs the
split alone.
"""

from __future__ import annotations

import re

from .._public import public
from ._instructions_lexicon import (
    ADDRESSEE,
    ADDRESSEE_WORDS,
    AGENT,
    AGENT_WORDS,
    CONDITIONAL,
    DIRECTIVE,
    NOT_VOCATIVE,
    OVERRIDE,
    OVERRIDE_OPENERS,
    OVERRIDE_WORDS,
    PUNCTUATION,
)
from ._records import Finding, finding

NAME = "instructions"
GAP = 400
"""Characters between two cues that still count as one passage."""
AGENT_NEEDED = 3
"""Distinct agent-only topics that make a passage a finding without an address or override."""
BEFORE, AFTER = 60, 160
"""How far a pattern may reach before and after the word that lets it run."""


def _one(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _mentions(pattern: str, word: str) -> bool:
    """Whether ``pattern`` can match text around ``word``: it names the word or its stem."""
    return any(stem in pattern for stem in {word, word[:-1], word[:-2], word[:5]} if len(stem) > 1)


class _Category:
    """One category's patterns, run near its words: each word runs only the patterns that
    name it (compiled when first needed), from a little before it to a little after."""

    __slots__ = ("_compiled", "_patterns", "words")

    def __init__(self, patterns: tuple[str, ...], words: frozenset[str]) -> None:
        self._patterns = patterns
        self.words = words
        self._compiled: dict[str, re.Pattern[str] | None] = {}

    def pattern(self, word: str) -> re.Pattern[str] | None:
        try:
            return self._compiled[word]
        except KeyError:
            near = tuple(p for p in self._patterns if _mentions(p, word))
            compiled = _one(near) if near else None
            self._compiled[word] = compiled
            return compiled

    def matches(self, low: str, words: set[str]) -> list[re.Match[str]]:
        hits = [
            (at, word) for word in self.words.intersection(words) for at in _occurrences(low, word)
        ]
        return self.near(low, hits)

    def near(self, low: str, hits: list[tuple[int, str]]) -> list[re.Match[str]]:
        """The matches of the patterns of each (offset, word) around that offset.

        A word's windows that overlap are read in one pass (a log with "user" on every line
        is read once, not once per line); a match counts when it lies inside one window."""
        found: dict[int, re.Match[str]] = {}
        size = len(low)
        by_word: dict[str, list[tuple[int, int]]] = {}
        for at, word in hits:
            window = (max(0, at - BEFORE), min(size, at + len(word) + AFTER))
            by_word.setdefault(word, []).append(window)
        for word, windows in by_word.items():
            pattern = self.pattern(word)
            if pattern is None:
                continue
            windows.sort()
            for start, end, parts in _merged(windows):
                for match in pattern.finditer(low, start, end):
                    if parts is None or _inside(parts, match.start(), match.end()):
                        found.setdefault(match.start(), match)
        return [found[start] for start in sorted(found)]


def _merged(windows: list[tuple[int, int]]) -> list[tuple[int, int, list[tuple[int, int]] | None]]:
    """Sorted windows joined where they overlap: (start, end, the windows joined, or None for
    a window alone)."""
    out: list[tuple[int, int, list[tuple[int, int]] | None]] = []
    group = [windows[0]]
    end = windows[0][1]
    for window in windows[1:]:
        if window[0] < end:
            group.append(window)
            end = max(end, window[1])
            continue
        out.append((group[0][0], end, group if len(group) > 1 else None))
        group, end = [window], window[1]
    out.append((group[0][0], end, group if len(group) > 1 else None))
    return out


def _inside(windows: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a <= start and end <= b for a, b in windows)


def _occurrences(low: str, word: str) -> list[int]:
    """Where ``word`` stands as a word (not inside a longer one)."""
    out: list[int] = []
    size, width = len(low), len(word)
    at = low.find(word)
    while at >= 0:
        end = at + width
        if (at == 0 or not low[at - 1].isalnum()) and (end == size or not low[end].isalnum()):
            out.append(at)
        at = low.find(word, end)
    return out


_OVERRIDE = _Category(OVERRIDE, OVERRIDE_WORDS)
_ADDRESSEE = _Category(ADDRESSEE, ADDRESSEE_WORDS)
_AGENT = {topic: _Category(patterns, AGENT_WORDS[topic]) for topic, patterns in AGENT.items()}
_DIRECTIVE = _one(DIRECTIVE)
_CONDITIONAL = _one(CONDITIONAL)
_NOT_VOCATIVE = re.compile(NOT_VOCATIVE)
_MENTION = re.compile(r"\b(?:like|such\s+as|e\.g\.|say|says|said|phrases?|wie|comme|como|tipo)\b")
_SENTENCE_END = re.compile(r"[.!?\n]")
_SPLIT = str.maketrans(dict.fromkeys(PUNCTUATION, " "))
_GLUED = tuple(sorted(word.capitalize() for word in OVERRIDE_OPENERS))
"""An override's first word, capitalised, as it turns up glued to the word before it
(``USAIgnore``): text pasted right after other text, a field's value written into a template."""


def _by_first_letter(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for ``words``, grouped by their first letter (``I(?:gnore|gnora|...)``):
    Python's matcher tries one branch per capital instead of all of them."""
    tails: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        tails.setdefault(word[0], []).append(re.escape(word[1:]))
    return re.compile("|".join(f"{first}(?:{'|'.join(rest)})" for first, rest in tails.items()))


_GLUED_SEARCH = _by_first_letter(_GLUED)

Cue = tuple[int, int, str]
Span = tuple[int, int]


def _conditional(low: str, start: int) -> bool:
    """An override a manual gives its reader: "if you use Docker, ignore the previous
    instructions" (the condition in the same sentence, just before)."""
    head = low[max(0, start - 120) : start]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    sentence = head[ends[-1] :] if ends else head
    return _CONDITIONAL.search(sentence) is not None


def _quoted(low: str, start: int) -> bool:
    """An override mentioned, not made: a guide quoting "ignore all previous instructions"."""
    head = low[max(0, start - 60) : start].rstrip()
    if not head or head[-1] not in "\"'`\u201c\u2018\u00ab\u201e":
        return False
    return _MENTION.search(head) is not None


def _cues(low: str, words: set[str]) -> list[Cue]:
    cues: list[Cue] = []
    for m in _OVERRIDE.matches(low, words):
        used = not (_conditional(low, m.start()) or _quoted(low, m.start()))
        cues.append((m.start(), m.end(), "override" if used else "agent:override"))
    for m in _ADDRESSEE.matches(low, words):
        if _NOT_VOCATIVE.match(low, m.end()):
            continue
        cues.append((m.start(), m.end(), "addressee"))
        near = _DIRECTIVE.search(low, m.end(), min(len(low), m.end() + GAP))
        if near is not None:
            cues.append((near.start(), near.end(), "directive"))
    cues += _agent_cues(low, words, cues)
    cues.sort()
    return cues


def _agent_cues(low: str, words: set[str], cues: list[Cue]) -> list[Cue]:
    """Agent topics count next to an override or an address, or three of them together: a
    topic's patterns run only where its word is near a cue or near two other topics' words."""
    present = {t: c.words.intersection(words) for t, c in _AGENT.items()}
    present = {t: w for t, w in present.items() if w}
    if not cues and len(present) < AGENT_NEEDED:
        return []
    hits = sorted(
        (at, topic, word) for topic, ws in present.items() for word in ws
        for at in _occurrences(low, word)
    )  # fmt: skip
    kept = _together(hits, [cue[0] for cue in cues])
    out: list[Cue] = []
    # Without an override or an address, topics make a finding only three together: a stretch
    # where fewer than three can still match is not read further (most text for people).
    for stretch in [kept] if cues else _stretches(kept):
        by_topic: dict[str, list[tuple[int, str]]] = {}
        for at, topic, word in stretch:
            by_topic.setdefault(topic, []).append((at, word))
        matched: list[Cue] = []
        topics = 0
        unread = len(by_topic)
        for topic, mine in sorted(by_topic.items(), key=lambda item: len(item[1])):
            if not cues and topics + unread < AGENT_NEEDED:
                break
            unread -= 1
            found = [(m.start(), m.end(), f"agent:{topic}") for m in _AGENT[topic].near(low, mine)]
            topics += bool(found)
            matched += found
        if cues or topics >= AGENT_NEEDED:
            out += matched
    return out


_REACH = GAP + 2 * (BEFORE + AFTER) + 64
"""Hits this far apart can give matches within ``GAP`` of each other (a match lies within
``BEFORE``/``AFTER`` of its word): the widest a passage can join them."""


def _stretches(hits: list[tuple[int, str, str]]) -> list[list[tuple[int, str, str]]]:
    """Sorted hits cut where two are more than ``_REACH`` apart: no passage spans a cut."""
    out: list[list[tuple[int, str, str]]] = []
    last = -_REACH - 1
    for hit in hits:
        if hit[0] - last > _REACH:
            out.append([])
        out[-1].append(hit)
        last = hit[0]
    return out


def _together(hits: list[tuple[int, str, str]], starts: list[int]) -> list[tuple[int, str, str]]:
    """The hits within ``GAP`` of a cue, or with two other topics within ``GAP``: three topics
    spread wider than that are too weak to report, so they are not looked at."""
    kept = []
    low_i = high_i = 0
    counts: dict[str, int] = {}
    for at, topic, word in hits:
        while high_i < len(hits) and hits[high_i][0] <= at + GAP:
            counts[hits[high_i][1]] = counts.get(hits[high_i][1], 0) + 1
            high_i += 1
        while hits[low_i][0] < at - GAP:
            name = hits[low_i][1]
            counts[name] -= 1
            if not counts[name]:
                del counts[name]
            low_i += 1
        if len(counts) >= AGENT_NEEDED or any(abs(at - start) <= GAP for start in starts):
            kept.append((at, topic, word))
    return kept


def _passages(cues: list[Cue]) -> list[list[Cue]]:
    groups: list[list[Cue]] = []
    end = -GAP - 1
    for cue in cues:
        if cue[0] - end > GAP:
            groups.append([])
        groups[-1].append(cue)
        end = max(end, cue[1])
    return groups


def _kind(group: list[Cue], low: str) -> str | None:
    kinds = {cue[2] for cue in group}
    if "override" in kinds:
        return "override"
    agent = {k for k in kinds if k.startswith("agent:")}
    if "addressee" in kinds and ("directive" in kinds or agent):
        return "addressed_directive"
    if len(agent) >= AGENT_NEEDED and any(
        len(topics) >= AGENT_NEEDED for topics in _topics_by_paragraph(group, low)
    ):
        return "agent_directive"
    return None


def _topics_by_paragraph(group: list[Cue], low: str) -> list[set[str]]:
    """The distinct agent topics of each paragraph of a passage, a phrase counted once: three
    topics without an address must be in one paragraph (an e-mail asking to send a report next
    to a manual's "before you start the task" is two texts for two people)."""
    out: list[set[str]] = [set()]
    end = -1
    for start, stop, kind in group:
        if end >= 0 and "\n\n" in low[end:start]:
            out.append(set())
        if kind.startswith("agent:") and start >= end:
            out[-1].add(kind)
        end = max(end, stop)
    return out


def _unglued(text: str, low: str) -> str:
    """``low`` with a space before each override verb glued to the word before it ("USAIgnore
    your previous instructions" reads "US ignore ...", a channel "External_Ignore ..." reads
    "External ignore ..."): the letter or underscore before it gives way, so the
    offsets stay those of ``text``. Only a capitalised opener after a letter counts (one
    substring search per opener): camelCase names in code (``ignorePreviousErrors``) stay."""
    glued: list[int] = []
    size = len(text)
    # One search for every opener (a pattern of literals is searched for in C from capital to
    # capital; 27 substring searches cost three times the detector on a lockfile). An opener
    # starts with the only capital it holds, so no two occurrences overlap.
    for candidate in _GLUED_SEARCH.finditer(text, 1):
        at = candidate.start()
        glue = text[at - 1]
        if (glue.isalpha() or glue == "_") and any(
            text.startswith(opener, at)
            and (at + len(opener) == size or not text[at + len(opener)].isalpha())
            for opener in _GLUED
        ):
            glued.append(at - 1)
    if not glued:
        return low
    chars = list(low)
    for at in glued:
        chars[at] = " "
    return "".join(chars)


def find_instructions(text: str) -> list[Finding]:
    """Passages that address the model or agent and tell it what to do (English, German,
    French, Spanish, Italian, Portuguese); one finding per passage, from its first cue to its
    last."""
    low = text.lower()
    if len(low) != len(text):
        # A few characters lower-case to two (İ): keep the offsets of the text scanned.
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    low = _unglued(text, low)
    words = set(low.translate(_SPLIT).split())
    found: list[Finding] = []
    for group in _passages(_cues(low, words)):
        kind = _kind(group, low)
        if kind is not None:
            start = group[0][0]
            end = max(cue[1] for cue in group)
            found.append(finding(NAME, kind, text, start, end))
    return found


public("toolhooks.kit", find_instructions)
