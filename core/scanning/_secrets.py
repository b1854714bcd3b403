"""``secrets``: credentials by their published formats, and secret-looking values assigned to a
secret-like name.

Every format is found by a literal its values always hold (``ghp_``, ``AKIA``, ``-----BEGIN``):
a text holding none of them costs a substring search per literal, not a pattern. A hash, a
UUID or a build id on its own is never a finding; only a value assigned to a name such as
``api_key`` or ``password`` is judged by how random it looks.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from .._public import public
from ._records import Finding, finding

NAME = "secrets"

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_END = r"(?![A-Za-z0-9_-])"
_START = r"(?<![A-Za-z0-9_-])"


def base62(number: int, width: int = 6) -> str:
    """``number`` in base 62 (digits, upper, lower), left-padded with ``0`` to ``width``."""
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = _B62[digit] + out
    return out.rjust(width, "0")


def _crc32_tail(value: str) -> bool:
    """GitHub's and npm's token formats: 30 random base62 characters after the prefix, then
    the CRC32 of those 30 in base 62 (6 characters)."""
    body = value[value.index("_") + 1 :]
    random, check = body[:-6], body[-6:]
    return base62(binascii.crc32(random.encode("ascii"))) == check


def _jwt_ok(value: str) -> bool:
    """A JWT's header decodes to a JSON object naming its algorithm (or its type)."""
    head = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        header = json.loads(decoded)
    except (ValueError, binascii.Error):
        return False
    return isinstance(header, dict) and ("alg" in header or "typ" in header)


def _basic_ok(value: str) -> bool:
    encoded = value.split()[-1]
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        text = decoded.decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    user, sep, password = text.partition(":")
    return bool(sep and user and password) and not _placeholder(password)


@dataclass(frozen=True, slots=True, kw_only=True)
class Format:
    """One published credential format: the literal its values hold, its pattern, and the check
    a value must pass (a checksum, a decodable header) when the format has one."""

    kind: str
    literals: tuple[str, ...]
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    group: int = 0


def _f(
    kind: str,
    literals: str | tuple[str, ...],
    pattern: str,
    check: Callable[[str], bool] | None = None,
    group: int = 0,
) -> Format:
    lits = (literals,) if isinstance(literals, str) else literals
    return Format(kind=kind, literals=lits, pattern=re.compile(pattern), check=check, group=group)


FORMATS: tuple[Format, ...] = (
    _f("aws_access_key_id", ("AKIA", "ASIA", "ABIA", "ACCA"),
       _START + r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}" + _END),
    _f("gcp_api_key", "AIza", _START + r"AIza[0-9A-Za-z_-]{35}" + _END),
    _f("gcp_oauth_client_secret", "GOCSPX-", _START + r"GOCSPX-[0-9A-Za-z_-]{28}" + _END),
    _f("gcp_oauth_token", "ya29.", _START + r"ya29\.[0-9A-Za-z_-]{30,}" + _END),
    _f("azure_client_secret", "Q~",
       _START + r"[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}" + r"(?![A-Za-z0-9_~.-])"),
    _f("azure_storage_key", "AccountKey=", r"AccountKey=([A-Za-z0-9+/]{86}==)", group=1),
    _f("azure_sas_token", "sig=", r"[?&]sv=\d{4}-\d\d-\d\d&[^\s\"'<>]*?sig=[A-Za-z0-9%+/=]{40,}"),
    _f("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
       _START + r"gh[pousr]_[A-Za-z0-9]{36}" + _END, _crc32_tail),
    _f("github_fine_grained_token", "github_pat_",
       _START + r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}" + _END),
    _f("gitlab_token", ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "gloas-"),
       _START + r"gl(?:pat|dt|rt|ptt|cbt|soat|oas)-[0-9A-Za-z_.-]{20,}" + _END),
    _f("gitlab_runner_token", "GR1348941", _START + r"GR1348941[0-9A-Za-z_-]{20,}" + _END),
    _f("slack_token", ("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe"),
       _START + r"xox(?:[baprs]|e(?:\.xox[bp])?)-(?:\d+-)+[0-9A-Za-z-]{20,}" + _END),
    _f("slack_app_token", "xapp-", _START + r"xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}" + _END),
    _f("slack_webhook", "hooks.slack.com/",
       r"https://hooks\.slack\.com/(?:services|workflows)/T[A-Z0-9]{6,12}/[A-Z0-9]{6,12}/"
       r"[A-Za-z0-9]{20,}"),
    _f("stripe_key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
       _START + r"[sr]k_(?:live|test)_[0-9A-Za-z]{24,99}" + _END),
    _f("stripe_webhook_secret", "whsec_", _START + r"whsec_[0-9A-Za-z+/=]{32,}" + _END),
    _f("openai_key", "T3BlbkFJ",
       _START + r"sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"
       + _END),
    _f("openai_key", ("sk-proj-", "sk-svcacct-", "sk-admin-"),
       _START + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}" + _END),
    _f("anthropic_key", "sk-ant-", _START + r"sk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{80,}" + _END),
    _f("npm_token", "npm_", _START + r"npm_[A-Za-z0-9]{36}" + _END, _crc32_tail),
    _f("pypi_token", "pypi-AgE", _START + r"pypi-AgE[A-Za-z0-9_-]{50,}" + _END),
    _f("huggingface_token", "hf_", _START + r"hf_[A-Za-z]{34}" + _END),
    _f("sendgrid_key", "SG.", _START + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END),
    _f("shopify_token", ("shpat_", "shpca_", "shppa_", "shpss_"),
       _START + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _END),
    _f("digitalocean_token", ("dop_v1_", "doo_v1_", "dor_v1_"),
       _START + r"do[por]_v1_[a-f0-9]{64}" + _END),
    _f("databricks_token", "dapi", _START + r"dapi[a-f0-9]{32}(?:-\d)?" + _END),
    _f("telegram_bot_token", ":AA", r"(?:(?<=bot)|(?<![\w:]))\d{8,10}:AA[0-9A-Za-z_-]{33}" + _END),
    _f("groq_key", "gsk_", _START + r"gsk_[A-Za-z0-9]{52}" + _END),
    _f("linear_key", "lin_api_", _START + r"lin_api_[A-Za-z0-9]{40}" + _END),
    _f("postman_key", "PMAK-", _START + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _END),
    _f("square_token", ("sq0atp-", "sq0csp-", "EAAA"),
       _START + r"(?:sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43})" + _END),
    _f("jwt", "eyJ",
       _START + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}" + _END, _jwt_ok),
    _f("basic_auth", ("Basic ", "basic "),
       r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic) [A-Za-z0-9+/]{8,}={0,2}", _basic_ok),
    _f("bearer_token", ("Bearer ", "bearer "),
       r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer) ([A-Za-z0-9._~+/-]{20,}=*)",
       lambda v: _random_enough(v, 20), group=1),
)  # fmt: skip

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----"
    r"[\s\\n]*(?:[A-Za-z][A-Za-z-]*: [^\n]*\s*)*(?:[A-Za-z0-9+/=]|\\n|\s){40,}?"
    r"(?:-----END \1-----|(?=[\"'])|$)"
)

# scheme://user:password@host, the password not a placeholder
_URL_PASSWORD = re.compile(
    r"(?<![\w+.-])[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'<>]{1,64}:([^\s:/@\"'<>]{1,128})@[\w.-]+"
)
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")
_DSN_PASSWORD = re.compile(
    r"(?i)(?:^|[;\s\"'])(?:password|pwd)\s*=\s*([^;\"'\s]{4,128})(?=;|[\"'\s]|$)"
)
_DSN_KEYS = re.compile(
    r"(?i)(?:^|;)\s*(?:server|data source|host|user id|uid|database|initial catalog)\s*="
)
"""A connection string (ADO.NET, ODBC, JDBC properties): ``key=value;`` pairs with a server."""


def _placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one."""
    low = value.lower().strip("\"'")
    if not low or low[0] in "$%{<[*(" or low.endswith(("}", ">", "]")):
        return True
    if len(set(low)) <= 2:
        return True  # xxxxxxxx, ********, 00000000
    words = ("password", "passwd", "secret", "changeme", "change_me", "example", "placeholder",
             "your", "xxx", "redacted", "dummy", "sample", "foobar", "todo", "hunter2",
             "insert", "replace", "token", "mask", "null", "none", "undefined")  # fmt: skip
    return any(word in low for word in words)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _random_enough(value: str, least: int) -> bool:
    """Long enough, letters and digits mixed, and random-looking (bits per character against
    what its alphabet allows: hex values are judged as hex)."""
    if len(value) < least or _placeholder(value):
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    hexadecimal = all(c in "0123456789abcdefABCDEF" for c in value)
    need = 3.0 if hexadecimal else 3.5
    return _entropy(value) >= min(need, math.log2(len(value)) - 0.5)


_NAME_WORDS = re.compile(
    r"(?i)(?:secret|passw(?:or)?d|pwd|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"secret[_-]?key|signing[_-]?key|master[_-]?key|client[_-]?secret|credentials?|auth[_-]?key|"
    r"session[_-]?key|encryption[_-]?key|webhook[_-]?secret)"
)
_VALUE = re.compile(
    r"[\"']?\s*(?::=|=>|[:=])\s*"
    r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\s]{4,256})(?P=q)|(?P<bare>[A-Za-z0-9+/_.~=!@#$%^&*-]{8,256}))"
)
"""What follows a secret-like name when a value is assigned to it (``= "..."``, ``: ...``)."""
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NOT_SECRET_NAMES = re.compile(
    r"(?i)(?:hash|digest|checksum|sha\d*|md5|_id$|id$|type|name|url|uri|path|file|len|length|"
    r"count|max|min|expir|ttl|prefix|format|version|limit|usage|endpoint|header|field|kind|"
    r"mode|method|style|param|env|var|policy|scope|size|index|timeout|_at$|date|time|enabled|"
    r"required|algorithm|alg|provider|store|service|location|source|label|description)"
)
_PASSWORD_NAME = re.compile(r"(?i)passw(?:or)?d|pwd|passphrase")
_KEYWORDS = (
    "secret", "passw", "pwd", "token", "api_key", "api-key", "apikey", "access_key",
    "access-key", "accesskey", "private_key", "private-key", "privatekey", "credential",
    "passphrase", "signing_key", "signingkey", "master_key", "masterkey", "auth_key", "authkey",
    "session_key", "sessionkey", "encryption_key", "encryptionkey",
)  # fmt: skip
"""Lower-case pieces of the names ``_NAME_WORDS`` accepts: where to look for assignments."""
_STEMS = ("secret", "passw", "pwd", "token", "key", "credential", "passphrase")
"""One of these is in every keyword: a text holding none has no assignment to read."""


def _password_ok(value: str) -> bool:
    """A password assigned to a password-like name: at least 8 characters of at least three
    kinds (lower, upper, digit, symbol), not a placeholder."""
    if len(value) < 8 or _placeholder(value):
        return False
    kinds = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )
    return kinds >= 3


def _assignments(text: str, low: str, found: list[Finding], taken: list[tuple[int, int]]) -> None:
    seen: set[int] = set()
    stems = [stem for stem in _STEMS if stem in low]
    if not stems:
        return
    for keyword in _KEYWORDS:
        if keyword not in stems and (keyword in _STEMS or "key" not in stems):
            continue  # its stem is not in the text (every other keyword holds "key")
        at = low.find(keyword)
        while at >= 0:
            end = at + len(keyword)
            while end < len(text) and text[end] in _NAME_CHARS:
                end += 1
            if end not in seen:
                seen.add(end)
                _assignment(text, at, end, found, taken)
            at = low.find(keyword, end)


def _assignment(
    text: str, at: int, end: int, found: list[Finding], taken: list[tuple[int, int]]
) -> None:
    """The value assigned to the name around ``at`` (ending at ``end``), if it is a secret."""
    start = at
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    name = text[start:end]
    match = _VALUE.match(text, end)
    if match is None or not _NAME_WORDS.search(name):
        return
    if _NOT_SECRET_NAMES.search(_last_word(name)):
        return
    group = "quoted" if match.group("quoted") is not None else "bare"
    value = match.group(group)
    span = match.span(group)
    if _overlaps(taken, *span):
        return
    ok = _password_ok(value) if _PASSWORD_NAME.search(name) else _random_enough(value, 16)
    if ok:
        found.append(finding(NAME, "assigned_secret", text, *span))
        taken.append(span)


def _last_word(name: str) -> str:
    """What the name is of: ``config.db.password`` is a password, ``api_key_id`` an id."""
    return re.split(r"[.]", name)[-1]


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in taken)


_TOKEN = re.compile(r"[A-Za-z0-9_.~-]{12,}")
"""A run of the characters credentials are written in (no ``=``, ``:`` or ``/``, so an
assignment's name and a URL's scheme are runs of their own)."""


def _prefixed(fmt: Format) -> bool:
    """A format whose values start with one of its literals (found by the runs' starts)."""
    if any(lit in _INSIDE for lit in fmt.literals):
        return False
    return all(_TOKEN.fullmatch(lit + "x" * 12) for lit in fmt.literals)


_INSIDE = frozenset({"T3BlbkFJ", "Q~"})
"""Literals in the middle of their values (``sk-...T3BlbkFJ...``, ``abc8Q~...``)."""


PREFIXED = tuple(f for f in FORMATS if _prefixed(f))
ELSEWHERE = tuple(f for f in FORMATS if not _prefixed(f))
_PREFIXES = tuple(lit for f in PREFIXED for lit in f.literals)


def _formats(text: str, found: list[Finding], taken: list[tuple[int, int]]) -> None:
    """Formats found by a literal at a run's start are read run by run (one pass over the
    text); the others by a substring search for their literal."""
    for run in _TOKEN.finditer(text):
        value = run.group()
        if value.startswith(_PREFIXES):
            for fmt in PREFIXED:
                if value.startswith(fmt.literals):
                    _match(fmt, fmt.pattern.match(text, run.start()), text, found, taken)
    for fmt in ELSEWHERE:
        if any(lit in text for lit in fmt.literals):
            for match in fmt.pattern.finditer(text):
                _match(fmt, match, text, found, taken)


def _match(
    fmt: Format,
    match: re.Match[str] | None,
    text: str,
    found: list[Finding],
    taken: list[tuple[int, int]],
) -> None:
    if match is None:
        return
    value = match.group(fmt.group)
    if fmt.check is not None and not fmt.check(value if fmt.group else match.group()):
        return
    if len(set(value)) < 10:
        return  # sk_test_xxxxxxxxxxxxxxxxxxxxxxxx: a placeholder in the format's shape
    start, end = match.span(fmt.group)
    if not _overlaps(taken, start, end):
        found.append(finding(NAME, fmt.kind, text, start, end))
        taken.append((start, end))


def _add(
    kind: str, text: str, span: tuple[int, int], found: list[Finding], taken: list[tuple[int, int]]
) -> None:
    if not _overlaps(taken, *span):
        found.append(finding(NAME, kind, text, *span))
        taken.append(span)


def _private_keys(text: str, found: list[Finding], taken: list[tuple[int, int]]) -> None:
    if "PRIVATE KEY" in text:
        for match in _PRIVATE_KEY.finditer(text):
            _add("private_key", text, match.span(), found, taken)


def _url_passwords(text: str, found: list[Finding], taken: list[tuple[int, int]]) -> None:
    """``scheme://user:password@host``, read at each ``://``."""
    at = text.find("://")
    while at >= 0:
        start = at
        while start > 0 and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        match = _URL_PASSWORD.match(text, start) if start < at else None
        if match is not None and not _placeholder(match.group(1)):
            _add("url_password", text, match.span(1), found, taken)
        at = text.find("://", at + 3)


def _dsn_passwords(text: str, found: list[Finding], taken: list[tuple[int, int]]) -> None:
    """``Password=...;`` in a line of ``key=value;`` pairs that names a server."""
    low = text.lower() if ("=" in text) else ""
    if "password" not in low and "pwd" not in low:
        return
    for match in _DSN_PASSWORD.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start : len(text) if line_end < 0 else line_end]
        if ";" in line and _DSN_KEYS.search(line) and not _placeholder(match.group(1)):
            _add("connection_string_password", text, match.span(1), found, taken)


def find_secrets(text: str) -> list[Finding]:
    """Credentials in ``text``: published formats (cloud keys, provider tokens checked by their
    checksum where they have one, private-key blocks, JWTs with a decodable header, passwords in
    connection strings and URLs) and random-looking values assigned to a secret-like name."""
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    _formats(text, found, taken)
    _private_keys(text, found, taken)
    _url_passwords(text, found, taken)
    _dsn_passwords(text, found, taken)
    _assignments(text, text.lower(), found, taken)
    found.sort(key=lambda f: f.start)
    return found


public("toolhooks.kit", find_secrets)
