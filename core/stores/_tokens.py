"""Tokens: the values whose provenance a ``from`` rule follows.

A token is a maximal run of letters, digits and ``@._%+-/:`` at least 6 characters long (an
IBAN, an e-mail address, a URL, a file name, an id). Tokens are compared after NFKC, case-folding
and removing format and other invisible characters (zero-width spaces, joiners, bidi controls,
variation selectors, tag characters), with the run's leading and trailing punctuation dropped
(``US1330000001212.`` at the end of a sentence is the IBAN ``us1330000001212``); text written in
tag characters also counts as the ASCII they stand for, which a model reads. A run also gives
its pieces between ``/`` and ``:`` of at least 6 characters: ``https://evil.example/steal``
gives ``evil.example`` too, so a URL copied into a param with another path, or an IBAN written
``iban:US13...``, is still found. E-mail addresses are not split at ``@``: a domain alone names
no one.

Values written the ways people write them are read as the value too, on every side alike:

- an identifier printed in groups (letters and digits joined by single spaces, dashes, dots or
  underscores, from a group holding a digit to a group holding a digit, at most 12 groups and
  40 characters, and between them only groups with a digit or of at most 4 letters):
  ``DE89 3704 0044 0532 0130 00`` also gives ``de89370400440532013000``; a line break (with the
  indentation around it, and YAML's ``\\`` escapes of a folded double-quoted string) stands for
  the space where a printed identifier was wrapped, when the group before it has four characters
  and a digit is next to it and the groups are printed in a line of groups (a separator on one
  side: ``US13 3000 0001 2121\\n    2121 212``, as YAML folds a long string); a column of numbers,
  one a line, stays apart; the hyphens of word processors (U+2010-U+2012, U+2212) are ``-``;
- an address written to dodge filters: ``name at example dot com``, ``name(at)example.com``,
  ``name [at] example [dot] com``, ``www[.]host[.]com``, ``host(.)com``, ``hxxps://`` (the word
  forms only before a common top-level domain, so "polka dot dress" is no host);
- a run of digits with leading zeros also counts without them (``000123456`` is ``123456``), and
  a number param counts by its decimal digits (``1e20`` is ``100000000000000000000``).

Results (:func:`result_tokens`) are read as their decoded strings: a JSON result is parsed and
each string, number and key of it tokenised, never its JSON encoding (where ``\\n`` would glue an
``n`` onto the next value).
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, Final

MIN_TOKEN = 6
"""A shorter run is a word, not a value worth following."""

_RUN = re.compile(r"[\w@.%+\-/:]{" + str(MIN_TOKEN) + ",}")
_EDGES = "._%+-/:@"
_ASCII_RUN = re.compile(r"[0-9A-Za-z@._%+\-/:]{" + str(MIN_TOKEN) + ",}")
"""_RUN for ASCII text, its classes spelled out as a byte set: the matcher tests a table, not
Unicode categories (a 25-character param 0.15 us, where str.translate + split took 0.7 us)."""

# Characters a reader does not see: Unicode's format characters (Cf) and the other default
# ignorable code points (variation selectors, Hangul fillers, the combining grapheme joiner, tag
# characters), as of Unicode 15 (a superset of the 14.0 of Python 3.11;
# tests/fleet/test_tokens.py checks every Cf character of the running Python is here). Written
# out: computing them from unicodedata at first use costs tens of milliseconds.
_INVISIBLE: Final = re.compile(
    "[\u00ad\u034f\u061c\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+"
)

# Grouped identifiers: a chain of groups (letters and digits) joined by single separators that
# starts at a word with a digit within its first five characters (anchored at a word boundary, so
# each start costs a few steps and a long word is read once) and goes on through groups that
# hold a digit or are at most four letters (a bank code: ``GB29 NWBK 6016``).
_CHAIN: Final = re.compile(
    r"\b[^\W\d_]{0,4}\d[^\W_]*+"
    r"(?:[ ._-](?:[^\W\d_]{1,4}(?![^\W_])|[^\W\d_]*+\d[^\W_]*+))++"
)


# The same chains found from their first digit: a pattern that starts with ``\d`` is searched
# for in C from digit to digit, where ``_CHAIN`` runs Python's matcher at every word boundary
# (a third of a params' tokenising). The lookbehinds say what ``_CHAIN``'s start does: at most
# four letters between the word's start and its first digit. tests/fleet/test_tokens.py holds
# both to the same chains.
def _chain_from_digit(digit: str, letter: str, alnum: str, word: str) -> str:
    return (
        rf"{digit}(?<!{digit}{digit})(?:(?<=(?<!{word}){digit})"
        + "".join(rf"|(?<=(?<!{word}){letter}{{{k}}}{digit})" for k in range(1, 5))
        + rf"){alnum}*+(?:[ ._-](?:{letter}{{1,4}}(?!{alnum})|{letter}*+{digit}{alnum}*+))++"
    )


_CHAIN_FROM_DIGIT: Final = re.compile(_chain_from_digit(r"\d", r"[^\W\d_]", r"[^\W_]", r"\w"))
# ... and for ASCII text (a params' strings, most results) with the same classes spelled out as
# byte sets: Unicode categories cost the matcher a table look-up a character, 30 % of a params'
# tokenising (callgrind).
_CHAIN_FROM_DIGIT_ASCII: Final = re.compile(
    _chain_from_digit("[0-9]", "[A-Za-z]", "[0-9A-Za-z]", "[0-9A-Za-z_]")
)
_SEPARATORS: Final = frozenset(" ._-")
# A line break where a space was: a wrapped line, or YAML's fold of a long string (a double-quoted
# one ends the line with ``\\`` and may start the next with an escaped space ``\\ ``). Both
# patterns start at the ``\n`` (a literal, searched for in C), test the next line first (most
# lines fail there, a few characters in) and then the character that ends the line before, past
# a space, a ``\\`` or a ``\r`` (fixed-width lookbehinds); the rest is looked at in Python.
_LINE_END_CHARS: Final = " \\\r"
_NEXT_LINE: Final = r"[ \t]*(?:\\ )?"
# A printed identifier wrapped onto the next line: a group of at most four starts the next line
# and a letter or digit ends the line before (_unfolded decides the rest).
_BREAK: Final = re.compile(
    r"\n(?="
    + _NEXT_LINE
    + r"([^\W_]{1,4})(?![^\W_]))(?:(?<=[^\W_]\n)|(?<=[^\W_][ \\\r]\n))"
    + _NEXT_LINE
)
_TWO_MORE_GROUPS: Final = re.compile(r" [^\W_]{4} [^\W_]")
# An address's word forms across a break: "name" + break + "at host.com", or a line ending in a
# word with a "t" ("name at" + break + "host.com"; _unbroken_words checks the word is at or dot).
_WORD_BREAK: Final = re.compile(
    r"\n" + _NEXT_LINE + r"(?=(?:at|dot) )|\n(?:(?<=(t)\n)|(?<=(t)[ \\\r]\n))" + _NEXT_LINE
)
_HYPHENS: Final = {0x2010: "-", 0x2011: "-", 0x2012: "-", 0x2212: "-"}
"""Hyphens that NFKC keeps (a word processor's non-breaking hyphen holds an IBAN on one line; a
figure dash is the phone-number one), read as ``-``. En and em dashes stay apart: they stand
between words."""
MAX_JOINED: Final = 40
"""Characters of one joined identifier (an IBAN has at most 34)."""
_LETTER_GROUP: Final = 4
"""A group of letters only joins when it is this short (a bank code: ``GB29 NWBK 6016``)."""

# Obfuscated addresses: bracketed markers (``[.]``, ``(at)``, ``{dot}``, ``[:]``) found by one
# search that starts at a bracket; the word forms (``at``, ``dot``) read word by word.
_BRACKETED: Final = re.compile(r"[\[({<]\s*(\.|dot|@|at|://|:)\s*[\])}>]\s*")
_PLAIN: Final = {".": "\0.", "dot": "\0.", "@": "\0@", "at": "\0@", ":": "\0:", "://": "\0://"}
_TLDS: Final = frozenset(
    [
        "com",
        "net",
        "org",
        "info",
        "biz",
        "io",
        "co",
        "ai",
        "app",
        "dev",
        "xyz",
        "top",
        "online",
        "site",
        "shop",
        "store",
        "club",
        "tech",
        "cloud",
        "email",
        "link",
        "click",
        "live",
        "me",
        "tv",
        "cc",
        "ru",
        "cn",
        "uk",
        "de",
        "fr",
        "es",
        "it",
        "nl",
        "eu",
        "us",
        "ca",
        "au",
        "in",
        "jp",
        "br",
        "ch",
        "pl",
        "se",
        "gov",
        "edu",
        "mil",
        "int",
        "local",
        "example",
        "test",
        "invalid",
    ]
)
_TRAILING: Final = ".,;:!?)]}>\"'"

_JSON_ESCAPE: Final = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_ESCAPED: Final = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _add(found: set[str], run: str) -> None:
    run = run.strip(_EDGES)
    if len(run) >= MIN_TOKEN:
        found.add(run)
        if run[0] == "0" or "/" in run or ":" in run:
            _add_forms(found, run)


def _add_forms(found: set[str], run: str) -> None:
    """The other forms of a token with leading zeros, a ``:`` or a ``/``: the digits without
    the zeros, an IPv6 address compressed, the pieces between ``/`` and ``:``."""
    if run[0] == "0" and run.isdigit():
        _add_digits(found, run)
    if run.count(":") >= 2 and _V6_CANDIDATE.fullmatch(run) is not None:
        _add_v6(found, run)
    if "/" in run or ":" in run:
        # the pieces between runs of / and : (str.split, a third of a regex split's cost; the
        # empty pieces between two separators are short)
        for piece in run.replace(":", "/").split("/"):
            piece = piece.strip(_EDGES)
            if len(piece) >= MIN_TOKEN:
                found.add(piece)
                if piece[0] == "0" and piece.isdigit():
                    _add_digits(found, piece)


def _add_digits(found: set[str], digits: str) -> None:
    """Digits compare without their leading zeros (an account number printed padded)."""
    short = digits.lstrip("0")
    if len(short) >= MIN_TOKEN:
        found.add(short)


def _add_v6(found: set[str], run: str) -> None:
    """An IPv6 address also counts in its compressed form (``2001:db8:0:0:0:0:0:7`` is
    ``2001:db8::7``)."""
    try:
        short = ipaddress.IPv6Address(run).compressed
    except ValueError:
        return
    if len(short) >= MIN_TOKEN:
        found.add(short)


def _normal(text: str) -> str:
    """NFKC, case-folded, without invisible characters (for text that is not ASCII)."""
    text = _INVISIBLE.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    # Case-folding can leave a text that is not NFKC (a decomposed letter would then end a run).
    if folded.isascii():
        return folded
    return unicodedata.normalize("NFKC", folded).translate(_HYPHENS)


def _runs(found: set[str], text: str) -> None:
    """The plain runs of an already normalised text."""
    if text.isascii():
        # The same runs as _RUN's (ASCII \w is letters, digits and _).
        add = found.add
        for run in _ASCII_RUN.findall(text):
            run = run.strip(_EDGES)  # _add, inlined: most runs are a word or an id
            if len(run) >= MIN_TOKEN:
                add(run)
                if run[0] == "0" or "/" in run or ":" in run:
                    _add_forms(found, run)
        return
    for match in _RUN.finditer(text):
        _add(found, match.group())


def _chains(text: str) -> list[str]:
    """What ``_CHAIN.finditer`` finds, each chain from its word's start."""
    out: list[str] = []
    chain = _CHAIN_FROM_DIGIT_ASCII if text.isascii() else _CHAIN_FROM_DIGIT
    for match in chain.finditer(text):
        start = match.start()
        while start > 0 and text[start - 1].isalnum():  # the (at most four) letters before
            start -= 1
        out.append(text[start : match.end()])
    return out


def _joined(found: set[str], text: str) -> None:
    """The joined forms of the grouped identifiers of a normalised text: each chain, trimmed to
    groups holding a digit at both ends, gives its whole join and the join of each run of groups
    that all hold a digit (``555 1234 or 555 9876`` gives both numbers), of 6 to 40 characters.
    """
    chain = _CHAIN_FROM_DIGIT_ASCII if text.isascii() else _CHAIN_FROM_DIGIT
    for match in chain.finditer(text):  # _chains, inlined (no list of chains)
        start = match.start()
        while start > 0 and text[start - 1].isalnum():  # the (at most four) letters before
            start -= 1
        # the groups: a chain's separators ([ ._-]) are single, so str.split finds them (a regex
        # split costs three times as much)
        spaced = text[start : match.end()].replace(".", " ").replace("_", " ").replace("-", " ")
        piece = spaced.split(" ")
        while piece[-1].isalpha():  # a group of letters and digits holds a digit unless alpha
            piece.pop()
        if len(piece) < 2:
            continue
        _add_joined(found, piece)
        if not any(map(str.isalpha, piece)):
            continue  # every group holds a digit: the one run of them is the whole join
        run: list[str] = []
        for group in piece:
            if not group.isalpha():
                run.append(group)
                continue
            if len(run) > 1:
                _add_joined(found, run)
            run = []
        if 1 < len(run) < len(piece):
            _add_joined(found, run)


def _line_end(text: str, newline: int) -> int:
    """Where the line before ``text[newline]`` ends: before a ``\\r``, a ``\\`` or a space."""
    if newline and text[newline - 1] in _LINE_END_CHARS:
        return newline - 1
    return newline


def _unbroken_words(text: str) -> str | None:
    """The text with each break next to ``at`` or ``dot`` written as one space (None: none)."""
    out: list[str] = []
    done = 0
    for match in _WORD_BREAK.finditer(text):
        start = _line_end(text, match.start())
        if match.lastindex:  # the line ends in a word with a t: is it at or dot?
            word = _group_before(text, start)
            if word != "at" and word != "dot":
                continue
        out.append(text[done:start])
        out.append(" ")
        done = match.end()
    if not out:
        return None
    out.append(text[done:])
    return "".join(out)


def _unfolded(text: str) -> str | None:
    """The text with each line break that wraps a printed identifier written as a space, or
    None when it has none.

    Identifiers are printed in groups of four (IBANs, card numbers) and wrapped at a space
    between groups. A break joins the group of four before it to the group after it when a digit
    is in one of them and the break falls inside such a line of groups: the group before follows
    a group of four holding a digit (``3704 0044`` + break), or it starts the line of groups and
    the next line goes on with at least three groups, the first two of four (``US13`` + break +
    ``3000 0001 2121 ...``). So a column of numbers, a date or a year at a line's end, and a
    phone number's short groups stay apart.
    """
    out: list[str] = []
    done = 0
    for match in _BREAK.finditer(text):
        start = _line_end(text, match.start())
        group = start - 4
        before, after = text[group:start], match.group(1)
        if group < 0 or not before.isalnum() or (group and text[group - 1].isalnum()):
            continue
        if not any(char.isdigit() for char in before + after):
            continue
        separated = group >= 2 and text[group - 1] in _SEPARATORS
        previous = _group_before(text, group - 1) if separated else ""
        has_digit = any(char.isdigit() for char in previous)
        if (text[group - 1] == " " and len(previous) == 4 and has_digit) or (
            not has_digit
            and len(after) == 4
            and _TWO_MORE_GROUPS.match(text, match.end() + 4) is not None
        ):
            out.append(text[done:start])
            out.append(" ")
            done = match.end()
    if not out:
        return None
    out.append(text[done:])
    return "".join(out)


def _group_before(text: str, end: int) -> str:
    """The letters and digits that end at ``end`` (at most five: a longer word is no group)."""
    start = end
    while start > 0 and end - start < 5 and text[start - 1].isalnum():
        start -= 1
    return text[start:end]


def _add_joined(found: set[str], groups: list[str]) -> None:
    joined = "".join(groups)
    if MIN_TOKEN <= len(joined) <= MAX_JOINED:
        found.add(joined)
        if joined[0] == "0" and joined.isdigit():
            _add_digits(found, joined)


def _unmasked(text: str) -> str | None:
    """The text with obfuscated addresses written plainly, or None when it holds none."""
    plain = text
    if "hxxp" in plain:
        plain = plain.replace("hxxp", "http")
    # The cheap tests first: most values hold no bracket at all.
    if ("[" in plain or "(" in plain or "{" in plain or "<" in plain) and _BRACKETED.search(
        plain
    ) is not None:
        # A marker takes the spaces around it: "name [at] example [dot] com".
        marked = _BRACKETED.sub(lambda m: _PLAIN[m.group(1)], plain).split("\0")
        plain = "".join([part.rstrip() for part in marked[:-1]] + marked[-1:])
    if "\n" in plain and (unbroken := _unbroken_words(plain)) is not None:
        plain = unbroken  # "billing at" + break + "host.com": a wrapped line, YAML's fold
    if " dot " in plain or " at " in plain:
        plain = _word_forms(plain)
    return None if plain == text else plain


def _word_forms(text: str) -> str:
    """``example dot com`` as ``example.com`` (only before a common top-level domain, so
    "polka dot dress" stays), then ``name at example.com`` as ``name@example.com`` (only before
    a dotted name ending in letters, so "meet at noon" stays). Text is split at the words (C
    speed); only the places where they occur are looked at."""
    if " dot " in text:
        parts = text.split(" dot ")
        out = [parts[0]]
        for index in range(1, len(parts)):
            part = parts[index]
            word = _first_word(part)
            # a chain "a dot b dot com" joins when it ends at a top-level domain
            end = index
            while word is not None and word == part and end + 1 < len(parts):
                end += 1
                part = parts[end]
                word = _first_word(part)
            tld = None if word is None else word.rstrip(_TRAILING)
            if tld in _TLDS and _last_word(out[-1]):
                out[-1] += "." + ".".join(parts[index : end + 1])
                for skipped in range(index + 1, end + 1):
                    parts[skipped] = ""
            else:
                out.append(" dot " + parts[index])
        text = "".join(out) if len(out) > 1 else out[0]
    if " at " in text:
        parts = text.split(" at ")
        out = [parts[0]]
        for part in parts[1:]:
            word = _first_word(part)
            domain = "" if word is None else word.rstrip(_TRAILING)
            last = domain.rpartition(".")[2]
            if "." in domain and len(last) >= 2 and last.isalpha() and _last_word(out[-1]):
                # the domain stays a word of its own too ("upload it at www.host.com")
                out[-1] += "@" + domain + " " + part
            else:
                out.append(" at " + part)
        text = "".join(out)
    return text


_WORD_START: Final = re.compile(r"\S+")


def _first_word(part: str) -> str | None:
    match = _WORD_START.match(part)
    return None if match is None else match.group()


def _last_word(part: str) -> bool:
    return bool(part) and not part[-1].isspace()


_TAG: Final = re.compile("[\U000e0020-\U000e007e]")
_TAGS_AS_ASCII: Final = {code: code - 0xE0000 for code in range(0xE0020, 0xE007F)}
"""Tag characters as the ASCII a model reads in them (U+E0041 is ``A``)."""


def _has_tags(text: str) -> bool:
    """Whether a text holds a tag character. Only a text with characters past U+FFFF can (in
    UTF-16 they take two units; encoding is a C copy, a tenth of a regex pass)."""
    astral = len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)
    return astral and _TAG.search(text) is not None


def text_tokens(text: str) -> set[str]:
    """The tokens of ``text`` (with their pieces, joined groups and unmasked addresses),
    normalised (NFKC, case-folded, invisible characters removed).

    Text written in tag characters is also read as the ASCII they stand for: a person sees
    nothing there, but a model reads it ("ASCII smuggling"), so a host or an IBAN carried that
    way is a value the model may copy into a call.
    """
    found: set[str] = set()
    _text_into(found, text)
    return found


def _text_into(found: set[str], text: str) -> None:
    """text_tokens, added to ``found`` (a params' strings share one set)."""
    if text.isascii():
        text = text.lower()
    else:
        if _has_tags(text) and (smuggled := text.translate(_TAGS_AS_ASCII)) != text:
            _text_into(found, smuggled)
        text = _normal(text)
    _runs(found, text)
    _joined(found, text)
    if "\n" in text and (unfolded := _unfolded(text)) is not None:
        _joined(found, unfolded)  # the chains of each line were joined above
    plain = _unmasked(text)
    if plain is not None:
        _runs(found, plain)


def _number_text(number: int | float) -> str:
    """A number by its decimal digits (an integral float without its ``.0`` or exponent)."""
    if isinstance(number, float):
        if math.isfinite(number) and number.is_integer():
            return str(int(number))
        return repr(number)
    return str(int(number))


def _walk(value: Any, keys: bool) -> set[str]:
    found: set[str] = set()
    stack: list[Any] = [value]
    seen: set[int] = set()  # a container that holds itself is read once
    while stack:
        item = stack.pop()
        kind = type(item)
        # JSON's own types first, by exact type: ABC isinstance checks cost a microsecond each.
        if kind is str:
            _text_into(found, item)
        elif kind is dict:
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item.values())
                if keys:
                    stack.extend(item.keys())
        elif kind is list or kind is tuple:
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item)
        elif isinstance(item, str):
            _text_into(found, item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, (int, float)):
            try:  # by its digits only: a number is not a grouped identifier
                _add(found, _number_text(item))
            except ValueError:  # an int past Python's digit limit: its hex is still a token
                _add(found, hex(int(item)))
        elif isinstance(item, (bytes, bytearray)):
            _text_into(found, bytes(item).decode("utf-8", "replace"))
        elif isinstance(item, Mapping):
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item.values())
                if keys:
                    stack.extend(item.keys())
        elif isinstance(item, Iterable):
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item)
        else:
            _text_into(found, str(item))
    return found


def value_tokens(value: Any) -> set[str]:
    """The tokens of every string, number and nested item of a call's params.

    Numbers count by their decimal digits (an account number given as an int is still that
    number); booleans and None hold no token. Bytes are read as UTF-8 with errors replaced.
    Mapping keys do not count: they are the tool's field names (``recipient``), which any text
    may say too.
    """
    return _walk(value, keys=False)


def result_tokens(text: str) -> set[str]:
    """The tokens of a result the model reads, as its decoded strings.

    A JSON object or array (a structured result rendered as JSON, every Claude Code
    ``tool_response``) is parsed and each of its strings, numbers and keys tokenised. Any other
    text (a trimmed JSON text too) is tokenised as it is and, when it holds a backslash, also
    with its JSON escapes decoded, so a ``\\n`` never glues an ``n`` onto the value after it.
    """
    head = text[:64].lstrip()[:1]
    if head == "{" or head == "[":
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):
            pass
        else:
            return _walk(decoded, keys=True)
    found = text_tokens(text)
    if "\\" in text:
        found |= text_tokens(_JSON_ESCAPE.sub(_unescape, text))
    return found


def _unescape(match: re.Match[str]) -> str:
    code, letter = match.groups()
    if code is not None:
        return chr(int(code, 16))
    return _ESCAPED.get(letter, letter)


_HOST_NAME: Final = re.compile(
    r"(?:^|[@/:.])[^\W_][\w-]*\.[^\W\d_]{2,}(?:$|[/:])|\.[^\W\d_]{2,}$|"
    r"(?:^|[@/])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:$|[/:])"
)
_V6_CANDIDATE: Final = re.compile(r"[0-9a-f:.]*:[0-9a-f:.]*:[0-9a-f:.%\w]*")


def names_host(token: str) -> bool:
    """Whether a token names a host: a dotted name whose last label is letters (at its end, or
    before a path or port), an IPv4 address, or an IPv6 address (``only = "hosts"``)."""
    if _HOST_NAME.search(token) is not None:
        return True
    if token.count(":") < 2:
        return False
    match = _V6_CANDIDATE.fullmatch(token)
    if match is None:
        return False
    try:
        ipaddress.IPv6Address(token)
    except ValueError:
        return False
    return True
