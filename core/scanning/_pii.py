"""``pii``: payment card numbers, IBANs, e-mail addresses and phone numbers in international form.

Each candidate a pattern finds must also pass the number's own check (Luhn and the issuer's
ranges for cards, mod 97 and the country's length for IBANs, a calling code and E.164's length
for phones), so order numbers, timestamps and hashes are not reported.
"""

from __future__ import annotations

import re

from .._public import public
from ._records import Finding, finding

NAME = "pii"

# Digits in groups: cards are written solid or in groups of 4 (Amex 4-6-5) split by one space
# or dash. Not inside a longer run of digits, letters, or a dotted/pathed token.
_CARD = re.compile(r"(?<![\w.:/+-])\d(?:\d| (?=\d)|-(?=\d)){11,22}(?![\w/-]|\.\d)")
_IBAN = re.compile(r"(?<![\w-])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}(?![\w-])")
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-]|\.\w|:\w|/)"
)
_PHONE = re.compile(
    r"(?<![\w+])\+(?:\d[ .-]?){1,3}(?:\(\d{1,4}\)[ .-]?)?(?:\d[ .-]?){5,13}\d(?![\w.-]?\d)"
)

_SHAPE = bytes.maketrans(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"0" * 10 + b"A" * 26)
"""A text's shape, one byte per character: digits ``0``, capitals ``A``, the rest as they are
(a non-ASCII character is ``?``). Its seeds say where a candidate can start."""
_CARD_SEEDS = (b"0" * 13, b"0000 0000 0000", b"0000-0000-0000", b"0000 000000 0000",
               b"0000-000000-0000")  # fmt: skip
"""Every card number holds one: 13 digits solid, or three groups printed apart."""
_RUN_CHARS = frozenset(b"0 -")

IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip
"""The IBAN registry's length per country."""

# E.164 country calling codes: the one- and two-digit codes in use; every other code has three
# digits and starts with a digit whose zone has them.
_CALLING_1_2 = frozenset(
    [
        "1",
        "7",
        "20",
        "27",
        "30",
        "31",
        "32",
        "33",
        "34",
        "36",
        "39",
        "40",
        "41",
        "43",
        "44",
        "45",
        "46",
        "47",
        "48",
        "49",
        "51",
        "52",
        "53",
        "54",
        "55",
        "56",
        "57",
        "58",
        "60",
        "61",
        "62",
        "63",
        "64",
        "65",
        "66",
        "81",
        "82",
        "84",
        "86",
        "90",
        "91",
        "92",
        "93",
        "94",
        "95",
        "98",
    ]
)
_CALLING_3_ZONES = "23456789"


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


_ANY_LONG = range(16, 20)
_NETWORKS: tuple[tuple[str, int, int, int, range | tuple[int, ...]], ...] = (
    ("visa", 1, 4, 4, (13, 16, 19)),
    ("mastercard", 2, 51, 55, (16,)),
    ("mastercard", 4, 2221, 2720, (16,)),
    ("amex", 2, 34, 34, (15,)),
    ("amex", 2, 37, 37, (15,)),
    ("discover", 4, 6011, 6011, _ANY_LONG),
    ("discover", 3, 644, 649, _ANY_LONG),
    ("discover", 2, 65, 65, _ANY_LONG),
    ("discover", 6, 622126, 622925, _ANY_LONG),
    ("jcb", 4, 3528, 3589, _ANY_LONG),
    ("diners", 3, 300, 305, range(14, 20)),
    ("diners", 2, 36, 36, range(14, 20)),
    ("diners", 2, 38, 39, range(14, 20)),
    ("unionpay", 2, 62, 62, _ANY_LONG),
)
"""(network, prefix digits, lowest prefix, highest prefix, lengths): the published ranges."""


def _issuer(digits: str) -> str | None:
    """The card network whose published ranges and lengths hold ``digits``."""
    for network, width, low, high, lengths in _NETWORKS:
        if len(digits) in lengths and low <= int(digits[:width]) <= high:
            return network
    return None


def _card_grouping_ok(raw: str) -> bool:
    """Solid, or groups split by one kind of separator, the way cards are printed."""
    seps = {c for c in raw if not c.isdigit()}
    if not seps:
        return True
    if len(seps) > 1:
        return False
    groups = [len(g) for g in raw.split(seps.pop())]
    return groups in ([4, 6, 5], [4, 6, 4]) or (
        all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4
    )


def _cards(text: str, shape: bytes, found: list[Finding]) -> None:
    done = -1
    for seed in _CARD_SEEDS:
        at = shape.find(seed)
        while at >= 0:
            start = at
            while start > 0 and shape[start - 1] in _RUN_CHARS:
                start -= 1
            while start < at and shape[start] != 48:  # the run's first digit
                start += 1
            if start > done:
                done = _card_at(text, start, found)
            at = shape.find(seed, max(at + 1, done))


def _card_at(text: str, start: int, found: list[Finding]) -> int:
    """Check the run of digits at ``start``; the offset where the next candidate may start."""
    match = _CARD.match(text, start)
    if match is None:
        return start + 1
    raw = match.group()
    digits = raw.replace(" ", "").replace("-", "")
    ok = 13 <= len(digits) <= 19 and _card_grouping_ok(raw) and _issuer(digits) is not None
    if ok and _luhn(digits):
        found.append(finding(NAME, "card_number", text, *match.span()))
    return match.end()


def _iban_ok(compact: str) -> bool:
    if IBAN_LENGTHS.get(compact[:2]) != len(compact):
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1


def _ibans(text: str, shape: bytes, found: list[Finding]) -> None:
    at = shape.find(b"AA00")
    while at >= 0:
        match = _IBAN.match(text, at)
        at = shape.find(b"AA00", at + 1)
        if match is None:
            continue
        raw = match.group()
        size = IBAN_LENGTHS.get(raw[:2])
        if size is None:
            continue
        # The candidate may have run into the next word ("... 3000 EUR"): cut it at the
        # country's own length, on a group's end.
        kept = _cut(raw, size)
        if kept is None or (" " in kept and not _iban_grouping_ok(kept)):
            continue
        if _iban_ok(kept.replace(" ", "")):
            start = match.start()
            found.append(finding(NAME, "iban", text, start, start + len(kept)))
            at = shape.find(b"AA00", start + len(kept))


def _cut(raw: str, size: int) -> str | None:
    count = 0
    for index, char in enumerate(raw):
        if char != " ":
            count += 1
            if count == size:
                rest = raw[index + 1 :]
                return raw[: index + 1] if not rest or rest[0] == " " else None
    return None


def _iban_grouping_ok(raw: str) -> bool:
    groups = [len(g) for g in raw.split(" ")]
    return all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4


_NOT_MAIL_TLDS = frozenset(
    [
        "png",
        "jpg",
        "jpeg",
        "gif",
        "svg",
        "webp",
        "ico",
        "bmp",
        "js",
        "mjs",
        "ts",
        "tsx",
        "jsx",
        "css",
        "scss",
        "py",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "c",
        "h",
        "cpp",
        "json",
        "yaml",
        "yml",
        "toml",
        "lock",
        "md",
        "txt",
        "html",
        "xml",
        "zip",
        "gz",
        "tgz",
        "whl",
        "so",
        "dll",
        "exe",
    ]
)


def _emails(text: str, found: list[Finding]) -> None:
    """Each ``@`` not inside an address already read: the address around it, if any."""
    done = 0
    at = text.find("@")
    while at >= 0:
        match = _EMAIL.search(text, max(done, at - 64), min(len(text), at + 256))
        if match is not None and match.start() < at < match.end():
            done = match.end()
            if _mail_ok(match.group()):
                found.append(finding(NAME, "email", text, *match.span()))
        at = text.find("@", max(at + 1, done))


def _mail_ok(raw: str) -> bool:
    local, _, domain = raw.partition("@")
    tld = domain.rsplit(".", 1)[-1].lower()
    return tld not in _NOT_MAIL_TLDS and not local.endswith(".") and ".." not in raw


def _phone_ok(digits: str) -> bool:
    if not 8 <= len(digits) <= 15:
        return False
    if digits[:1] in _CALLING_1_2 or digits[:2] in _CALLING_1_2:
        return True
    return digits[0] in _CALLING_3_ZONES


def _phones(text: str, found: list[Finding]) -> None:
    at = text.find("+")
    while at >= 0:
        match = _PHONE.match(text, at)
        if match is not None and _phone_ok("".join(c for c in match.group() if c.isdigit())):
            found.append(finding(NAME, "phone", text, *match.span()))
            at = text.find("+", match.end())
        else:
            at = text.find("+", at + 1)


def find_pii(text: str) -> list[Finding]:
    """Card numbers (Luhn and issuer ranges), IBANs (mod 97, the country's length), e-mail
    addresses and phone numbers written in international form (``+`` and a calling code)."""
    found: list[Finding] = []
    if "@" in text:
        _emails(text, found)
    if "+" in text:
        _phones(text, found)
    shape = text.encode("ascii", "replace").translate(_SHAPE)
    _cards(text, shape, found)
    _ibans(text, shape, found)
    found.sort(key=lambda f: f.start)
    return found


public("toolhooks.kit", find_pii)
