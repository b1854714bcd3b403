"""``hidden_text``: characters a person does not see and a model reads.

One pass of a compiled character class finds the runs of invisible characters; each run is then
judged by its neighbours, so the joiners, selectors and marks that emoji, Arabic, Persian,
Hebrew and Indic text need are left alone. ASCII text holds none of them and costs one
``str.isascii``.
"""

from __future__ import annotations

import re
import unicodedata

from .._public import public
from ._records import Finding, finding

NAME = "hidden_text"

_TAGS = "\U000e0001\U000e0020-\U000e007f"
_VS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_BIDI_EMBED = "\u202a-\u202e"
_BIDI_MARKS = "\u200e\u200f\u061c\u2066-\u2069"
_ZERO_WIDTH = "\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f\u206a-\u206f\ufff9-\ufffb\u00ad"
_ZERO_WIDTH_MORE = "\U0001d173-\U0001d17a\u17b4\u17b5\u180b-\u180f"
_FILLERS = "\u115f\u1160\u3164\uffa0\u2800"
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"

_RUNS = re.compile(
    f"[{_TAGS}{_VS}{_BIDI_EMBED}{_BIDI_MARKS}{_ZERO_WIDTH}{_ZERO_WIDTH_MORE}{_FILLERS}{_PRIVATE}]+"
)

ZWNJ, ZWJ, VS15, VS16, BOM, SOFT_HYPHEN = "\u200c", "\u200d", "\ufe0e", "\ufe0f", "\ufeff", "\u00ad"
CANCEL_TAG, BLACK_FLAG = "\U000e007f", "\U0001f3f4"
_BIDI_MARK_SET = frozenset("\u200e\u200f\u061c\u2066\u2067\u2068\u2069")
_RTL_CONTEXT = 200
"""How far (characters) an isolate or a direction mark may be from right-to-left letters."""
_SUBDIVISION = re.compile(
    "[\U000e0061-\U000e007a]{2}[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,3}\U000e007f"
)
"""A subdivision flag's tag spec (``gbsct``): a region code, then up to three letters/digits."""
_RTL = re.compile(
    "[\u05d0-\u05f2\u0620-\u064a\u0660-\u0669\u066e-\u06d3\u06d5\u06ee-\u06ff\u0710-\u074f"
    "\u0750-\u07b1\u07c0-\u07ea\u0800-\u0815\u0840-\u0858\u0860-\u086a\u08a0-\u08c9"
    "\ufb1d-\ufdfb\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
"""Right-to-left letters and Arabic digits (not the direction marks themselves)."""

# Scripts whose words need ZWNJ / ZWJ (and whose marks sit between letters): Hebrew, Arabic,
# Syriac, Thaana, N'Ko, Indic scripts, Sinhala, Thai, Lao, Tibetan, Myanmar, Khmer, Mongolian,
# and the Arabic presentation forms.
_JOINING_RANGES = (
    (0x0590, 0x08FF),
    (0x0900, 0x0DFF),
    (0x0E00, 0x0FFF),
    (0x1000, 0x109F),
    (0x1780, 0x18AF),
    (0x1900, 0x1CFF),
    (0xA800, 0xABFF),
    (0xFB1D, 0xFDFF),
    (0xFE70, 0xFEFF),
    (0x10A00, 0x11FFF),
)


def _in_joining_script(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _JOINING_RANGES)


def _latin(char: str) -> bool:
    """A letter or digit of an alphabet whose words never need an invisible character: Latin
    (basic, supplement, extended, fullwidth), Greek and Cyrillic."""
    if char.isascii():
        return char.isalnum()
    code = ord(char)
    return char.isalpha() and (
        0x00C0 <= code <= 0x024F
        or 0x0370 <= code <= 0x052F
        or 0x1E00 <= code <= 0x1FFF
        or 0x2C60 <= code <= 0x2C7F
        or 0xA720 <= code <= 0xA7FF
        or 0xFF21 <= code <= 0xFF5A
    )


def _emoji(char: str) -> bool:
    """A character that is drawn as (or may be drawn as) an emoji, or an emoji modifier."""
    code = ord(char)
    if 0x1F000 <= code <= 0x1FAFF or 0x2190 <= code <= 0x2BFF:
        return True
    return code in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)


def _ideograph(char: str) -> bool:
    code = ord(char)
    return (
        0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x3FFFF
    )


def _selector_ok(base: str, selector: str, after: str) -> bool:
    """One variation selector after ``base``: an emoji / text presentation selector after an
    emoji or a keycap base, an ideographic selector after an ideograph, a standardized one
    after a symbol or a letter of a script that has such sequences."""
    if not base:
        return False
    code = ord(selector)
    if code >= 0xE0100:
        return _ideograph(base)
    if selector in (VS15, VS16):
        if base in "0123456789#*":
            return after == "\u20e3"
        return _emoji(base) or unicodedata.category(base) in ("So", "Sm")
    if base.isascii():
        return False
    return _ideograph(base) or unicodedata.category(base) in ("So", "Sm", "Lo", "Lm")


def _braille(char: str) -> bool:
    return "\u2801" <= char <= "\u28ff"


def _kind(run: str) -> str:
    """The kind a run is reported as: the most telling character in it names it."""
    for char in run:
        code = ord(char)
        if 0xE0000 <= code <= 0xE007F:
            return "tag_characters"
    for char in run:
        code = ord(char)
        if 0xE000 <= code <= 0xF8FF or code >= 0xF0000:
            return "private_use"
        if 0x202A <= code <= 0x202E or char in _BIDI_MARK_SET:
            return "bidi_control"
        if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
            return "variation_selector"
        if char in _FILLERS:
            return "filler"
    return "zero_width"


def _rtl_near(text: str, start: int, end: int) -> bool:
    low = max(0, start - _RTL_CONTEXT)
    return _RTL.search(text, low, min(len(text), end + _RTL_CONTEXT)) is not None


def _emoji_run_ok(run: str, before: str, after: str) -> bool:
    """The invisible part of an emoji sequence: VS16 after an emoji, a ZWJ between two emoji
    (``👨‍👩‍👧``, ``🏳️‍🌈``), a keycap's VS16."""
    if run in (VS16, VS15):
        return _selector_ok(before, run, after)
    if run in (ZWJ, VS16 + ZWJ):
        return bool(before) and bool(after) and _emoji(before) and _emoji(after)
    return False


def _single_ok(text: str, char: str, start: int, before: str, after: str) -> bool:
    """One invisible character, judged by its neighbours."""
    code = ord(char)
    if char == SOFT_HYPHEN or (char == BOM and start == 0):
        return True
    if 0x202A <= code <= 0x202E or 0xE000 <= code <= 0xF8FF or code >= 0xE0000:
        # Overrides, embeddings, private use and tags are never needed alone; an ideographic
        # selector after an ideograph is.
        return 0xE0100 <= code <= 0xE01EF and _selector_ok(before, char, after)
    if 0xFE00 <= code <= 0xFE0F:
        return _selector_ok(before, char, after)
    if char in _BIDI_MARK_SET:
        return _rtl_near(text, start, start + 1)
    if char in _FILLERS:
        return _filler_ok(char, before, after)
    if char in (ZWNJ, ZWJ) and _joiner_ok(char, before, after):
        return True
    # Other zero-width and format characters: only inside a word of a Latin-like alphabet.
    return not (before and after and _latin(before) and _latin(after))


def _filler_ok(char: str, before: str, after: str) -> bool:
    """Blank braille between braille cells; the Hangul jamo fillers inside a jamo sequence."""
    if char == "\u2800":
        return _braille(before) or _braille(after)
    if char == "\u115f":
        return "\u1160" <= after <= "\u11a7"
    if char == "\u1160":
        return "\u1100" <= before <= "\u115f"
    return False


def _joiner_ok(char: str, before: str, after: str) -> bool:
    """ZWNJ / ZWJ next to a letter of a script that needs them, or a ZWJ between emoji."""
    if _in_joining_script(before) or _in_joining_script(after):
        return True
    return char == ZWJ and bool(before) and bool(after) and _emoji(before) and _emoji(after)


def _run_ok(text: str, run: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if len(run) == 1:
        return _single_ok(text, run, start, before, after)
    if before == BLACK_FLAG and _SUBDIVISION.fullmatch(run):
        return True
    if run.count("\u2800") == len(run):
        # Braille text and braille art: blank cells between drawn ones.
        return _braille(before) or _braille(after)
    if _emoji_run_ok(run, before, after):
        return True
    # Right-to-left text may put a direction mark or an isolate next to a joiner.
    if len(run) <= 3 and all(c in _BIDI_MARK_SET or c in (ZWNJ, ZWJ) for c in run):
        return _rtl_near(text, start, end)
    return False


def find_hidden_text(text: str) -> list[Finding]:
    """Runs of characters a person does not see: Unicode tags, zero-width and format characters
    inside Latin-script words or in runs, bidi overrides and embeddings, isolates and direction
    marks away from right-to-left text, stray variation selectors, Hangul and braille fillers,
    private-use characters. One finding per run."""
    if text.isascii():
        return []
    found: list[Finding] = []
    for match in _RUNS.finditer(text):
        start, end = match.span()
        run = match.group()
        if start == 0 and run[0] == BOM:
            if len(run) == 1:
                continue
            start, run = 1, run[1:]
        if not _run_ok(text, run, start, end):
            found.append(finding(NAME, _kind(run), text, start, end))
    return found


public("toolhooks.kit", find_hidden_text)
