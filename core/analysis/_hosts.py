"""Hosts a command talks to: URLs in any word, ssh destinations, ``[user@]host:path`` targets,
bare host arguments of network programs, proxies; each lower-cased, IDNA, no port, no trailing
dot. Where URL parsers could disagree (``\\@``, percent-encoding) every candidate counts.

Over 300 lines on purpose: each network program's way of naming a host (curl's proxies, wget's
``-e``, git's ``-c http.proxy``, ssh's ``-J``, scp's brackets) reads best beside the others."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from urllib.parse import unquote

from .._public import public
from ._options import read_options
from ._programs import (
    CONNECT_TO,
    ENVIRONMENT_HOSTS,
    GIT_SUBCOMMAND_HOSTS,
    JUMP,
    NC,
    PROGRAMS,
    PROXY,
    REPOSITORY,
    RESOLVE,
    SSH,
    SSH_OPTION,
    URL,
    WGET,
    WGETRC,
    Program,
    every_option,
    url_globs,
)
from ._records import Command, Word

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}:(?://|\\\\|/\\|\\/)([^\s/?#\"'<>`]*)")
_EXTRA_SLASHES = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,30}):[/\\]{3,}([^\s/\\?#\"'<>`]*)")
_HOST_CHARS = re.compile(r"[a-z0-9._-]+\Z")
_LOOKS_LIKE_HOST = re.compile(r"[A-Za-z0-9._~%\[\]:-]+\Z")


def normalise_host(host: str) -> str | None:
    """``host`` lower-cased, IDNA-encoded, without port, brackets or trailing dot; None when it
    is no host name."""
    host = host.strip()
    if "@" in host and not host.startswith("["):
        host = host.rsplit("@", 1)[1]
    if host.startswith("["):
        end = host.find("]")
        inner = host[1:end] if end > 0 else host[1:]
        try:
            return str(ipaddress.IPv6Address(inner.split("%")[0]))
        except ValueError:
            # scp and ssh strip the brackets from any host (user@[host]:path)
            host = inner.rsplit("@", 1)[-1]
            if not host or "[" in host:
                return None
    if host.count(":") > 1:
        try:
            return str(ipaddress.IPv6Address(host))
        except ValueError:
            return None
    host = host.split(":", 1)[0]
    host = host.rstrip(".").rstrip("\u3002\uff0e\uff61")
    if not host:
        return None
    if host.isascii():
        # What the IDNA codec makes of an ASCII name (its bytes as they are, or an error for an
        # empty or long label and then the fallback below) is the name in lower case either
        # way: found without importing the codec (with stringprep and unicodedata: 6 M
        # instructions in every process that reads a host).
        encoded = host.lower()
    else:
        try:
            encoded = host.encode("idna").decode("ascii").lower()
        except (UnicodeError, ValueError):
            lowered = host.lower()
            encoded = lowered if lowered.isascii() else ""
    encoded = encoded.rstrip(".")
    if not encoded or not _HOST_CHARS.match(encoded):
        return None
    return encoded


def _authority_hosts(authority: str) -> list[str]:
    """The hosts different URL parsers would take from ``authority``."""
    candidates = {authority}
    decoded = unquote(authority)
    candidates.add(decoded)
    out: list[str] = []
    for text in candidates:
        # RFC 3986: userinfo ends at the last @; some parsers stop at the first.
        out.append(text.rsplit("@", 1)[-1])
        if "@" in text:
            out.append(text.split("@", 1)[1].split("@", 1)[0])
        # WHATWG reads a backslash as a path separator: the host ends there.
        for cut in re.split(r"[\\]", text):
            out.append(cut.rsplit("@", 1)[-1])
            break
    return out


def hosts_in_text(text: str) -> tuple[str, ...]:
    """Hosts of the URLs in ``text``."""
    if ":" not in text:
        return ()
    if "\t" in text or "\n" in text or "\r" in text:
        # WHATWG parsers (a browser, Node's fetch) drop every tab and newline in a URL first:
        # https://github.com<TAB>.evil.example is https://github.com.evil.example to them
        stripped = text.replace("\t", "").replace("\n", "").replace("\r", "")
        return tuple(dict.fromkeys(_hosts(text) + _hosts(stripped)))
    return tuple(dict.fromkeys(_hosts(text)))


def _hosts(text: str) -> list[str]:
    found: list[str] = []
    for match in _URL.finditer(text):
        for candidate in _authority_hosts(match.group(1)):
            host = normalise_host(candidate)
            if host:
                found.append(host)
    # curl (and WHATWG for special schemes) skip any number of slashes: https:///evil.example
    for match in _EXTRA_SLASHES.finditer(text):
        if match.group(1).lower() == "file":
            continue  # file:///path names a file (command_paths has it), not a host
        for candidate in _authority_hosts(match.group(2)):
            host = normalise_host(candidate)
            if host:
                found.append(host)
    return found


def _scp_host(text: str) -> str | None:
    """The host of ``[user@]host:path`` (an scp, rsync or git remote target)."""
    if text.startswith(("/", ".", "-", "~")) or ":" not in text or "://" in text:
        return None
    head = text.split(":", 1)[0]
    if "[" in head and "]" in text:
        # [host]:path, user@[2001:db8::1]:path: the brackets hold the host, colons and all
        head = text.split("]", 1)[0] + "]"
        at = head.rfind("@", 0, head.find("["))
        return normalise_host(head[at + 1 :] if at >= 0 else head)
    if "/" in head or not head:
        return None
    if head.startswith("["):
        inner = text[1:].split("]", 1)[0]
        return normalise_host(f"[{inner}]")
    return normalise_host(head)


def _bare_host(text: str) -> str | None:
    """A network program's bare argument (``example.com``, ``example.com:8080/path``)."""
    head = re.split(r"[/?#]", text, maxsplit=1)[0]
    if not head or not _LOOKS_LIKE_HOST.match(head):
        return None
    return normalise_host(head)


_NETWORK = frozenset(
    {
        "curl",
        "wget",
        "ssh",
        "autossh",
        "scp",
        "sftp",
        "nc",
        "ncat",
        "netcat",
        "telnet",
        "ftp",
        "rsync",
        "git",
        "http",
        "https",
        "xh",
        "aria2c",
        "lftp",
        "mosh",
        "ping",
        "dig",
        "nslookup",
        "host",
        "traceroute",
        "socat",
    }
)
"""Programs whose bare arguments name hosts (every program with host options in its table is
one: tests/analysis/test_programs.py)."""
_GIT_REMOTE_VERBS = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "archive"})


def command_hosts(command: Command) -> tuple[str, ...]:
    """Every host the command names, normalised."""
    found: list[str] = []
    for word in (*command.argv, *command.redirects, *command.assignments):
        if word.text is not None:
            found.extend(hosts_in_text(word.text))
    for word in command.assignments:
        name, _, value = (word.text or "").partition("=")
        if name in ENVIRONMENT_HOSTS and value:
            for one in value.replace(",", " ").split():
                _found(_proxy_host(one), found)
    program = command.program or ""
    if program in _NETWORK:
        found.extend(_program_hosts(program, command.argv))
    found.extend(ip for host in found for ip in _ipv4_forms(host))
    return tuple(dict.fromkeys(found))


def _ipv4_forms(host: str) -> list[str]:
    """The dotted quad a URL parser reads in a numeric host (``2130706433``, ``0x7f.1``,
    ``0177.0.0.1`` are all 127.0.0.1 to curl and browsers)."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(parts) or host[0] not in "0123456789":
        return []
    numbers: list[int] = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                numbers.append(int(part, 8))
            else:
                numbers.append(int(part, 10))
        except ValueError:
            return []
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return []
    value = sum(n << (8 * (3 - i)) for i, n in enumerate(head)) + last
    dotted = str(ipaddress.IPv4Address(value))
    return [dotted] if dotted != host else []


def _found(host: str | None, found: list[str]) -> None:
    if host:
        found.append(host)


def _proxy_host(text: str) -> str | None:
    """The host of a proxy setting (``[scheme://][user@]host[:port]``)."""
    return _bare_host(text.split("://", 1)[-1].rsplit("@", 1)[-1])


def _connect_to_hosts(text: str) -> list[str]:
    parts = text.split(":")
    return [h for h in (normalise_host(p) for p in parts[::2]) if h]


def _resolve_hosts(text: str) -> list[str]:
    host, _, rest = text.partition(":")
    address = rest.partition(":")[2]
    found: list[str] = []
    for one in (host, *address.split(",")):
        _found(normalise_host(one.strip("[]") if one.count(":") > 1 else one), found)
    return found


def _wgetrc_hosts(text: str) -> list[str]:
    """wget -e http_proxy=HOST: a wgetrc command naming the proxy."""
    key, _, setting = text.partition("=")
    if key.strip().lower().replace("_", "") not in ("httpproxy", "httpsproxy", "ftpproxy"):
        return []
    found: list[str] = []
    _found(_bare_host(setting.strip().split("://", 1)[-1].rsplit("@", 1)[-1]), found)
    return found


def _proxy_hosts(text: str) -> list[str]:
    found: list[str] = []
    _found(_proxy_host(text), found)
    return found


def _jump_hosts(text: str) -> list[str]:
    found: list[str] = []
    for jump in text.split(","):
        _found(normalise_host(jump.split("://", 1)[-1].split("/", 1)[0]), found)
    return found


def _ssh_option_hosts(text: str) -> list[str]:
    found: list[str] = []
    parts = re.split(r"\s*=\s*|\s+", text.strip(), maxsplit=1)
    if len(parts) == 2 and parts[0].lower() in ("hostname", "proxyjump"):
        found.extend(_jump_hosts(parts[1]))
    return found


def _url_hosts(text: str) -> list[str]:
    return list(hosts_in_text(text)) or _proxy_hosts(text)


def _repository_hosts(text: str) -> list[str]:
    found = list(hosts_in_text(text))
    _found(_scp_host(text), found)
    return found


_OPTION_HOSTS: dict[str, Callable[[str], list[str]]] = {
    PROXY: _proxy_hosts,
    JUMP: _jump_hosts,
    SSH_OPTION: _ssh_option_hosts,
    CONNECT_TO: _connect_to_hosts,
    RESOLVE: _resolve_hosts,
    URL: _url_hosts,
    WGETRC: _wgetrc_hosts,
    REPOSITORY: _repository_hosts,
}
"""How each kind of host option of the tables names its hosts."""


def _option_hosts(table: Program, argv: tuple[Word, ...]) -> list[str]:
    """The hosts the options of ``argv`` name, by the program's table."""
    found: list[str] = []
    if not table.hosts:
        return found
    for option, value in every_option(table, argv):
        kind = table.hosts.get(option)
        if kind is not None and value is not None and value.text is not None:
            found.extend(_OPTION_HOSTS[kind](value.text))
    return found


def _fetcher_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    """curl, wget, httpie, xh, aria2c: option values naming proxies, bare URL operands, and
    curl's URL globs expanded (``https://{evil,github}.example``)."""
    table = PROGRAMS.get(program) or WGET
    found = _option_hosts(table, argv)
    globbing = table.url_globs and not any(
        o in ("-g", "--globoff") for o, _ in every_option(table, argv)
    )
    i = 1
    while i < len(argv):
        read = read_options(argv, i, table.options)
        if read.index >= len(argv):
            break
        word = argv[read.index]
        i = read.index + 1
        text = word.text
        # An option curl does not take (read.problem) is skipped, never read as a host.
        if not text or text.startswith("-"):
            continue
        expanded = (url_globs(text) or [text]) if globbing else [text]
        found.extend(_operand_urls(expanded))
    if globbing:
        for option, value in every_option(table, argv):
            if option == "--url" and value is not None and value.text:
                for one in url_globs(value.text) or ():
                    found.extend(_url_hosts(one))
    return found


def _operand_urls(expanded: list[str]) -> list[str]:
    """The hosts of a fetcher's operand, as the URLs its globs made (a word's own URLs are
    command_hosts'), or as a bare host."""
    found: list[str] = []
    for one in expanded:
        if len(expanded) > 1:
            found.extend(hosts_in_text(one))
        if "://" not in one:
            at = "@" in one.split("/")[0]
            _found(_bare_host(one.rsplit("@", 1)[-1] if at else one), found)
    return found


def _ssh_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    """ssh, autossh, mosh: -J and -o HostName/ProxyJump, then the destination."""
    found = _option_hosts(SSH, argv)
    read = read_options(argv, 1, SSH.options)
    if read.index < len(argv) and argv[read.index].text:
        target = argv[read.index].text or ""
        _found(normalise_host(target.split("://", 1)[-1].split("/", 1)[0]), found)
    return found


def _copy_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    """scp, sftp, rsync: ``[user@]host:path`` operands (sftp also takes a bare host), and the
    hosts their options name (``scp -J``, ``-o HostName=``)."""
    table = PROGRAMS.get(program)
    found = _option_hosts(table, argv) if table is not None else []
    for word in argv[1:]:
        if word.text and not word.text.startswith("-"):
            host = _scp_host(word.text)
            if host:
                found.append(host)
            elif program == "sftp":
                _found(_bare_host(word.text.rsplit("@", 1)[-1]), found)
    return found


def _git_config_hosts(argv: tuple[Word, ...]) -> list[str]:
    """``-c http.proxy=HOST`` and ``-c url.<base>.insteadOf=<prefix>`` (the remote really is
    <base>)."""
    found: list[str] = []
    for i, word in enumerate(argv[:-1]):
        pair = argv[i + 1].text or ""
        key, _, setting = pair.partition("=")
        key = key.lower()
        if word.text == "-c" and key.endswith(".proxy") and key.startswith(("http", "remote.")):
            _found(_proxy_host(setting), found)
    for index, word in enumerate(argv[1:-1], start=1):
        option_value = argv[index + 1].text or ""
        if word.text == "-c" and option_value.lower().startswith("url.") and "=" in option_value:
            base = option_value[4:].split("=", 1)[0].rsplit(".", 1)[0]
            found.extend(hosts_in_text(base))
            _found(_scp_host(base), found)
    return found


def _git_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    found = _git_config_hosts(argv)
    for i, word in enumerate(argv[1:], start=1):
        # a subcommand's options naming a repository, anywhere (``git push --repo=host:x``)
        name, eq, value = (word.text or "").partition("=")
        kind = GIT_SUBCOMMAND_HOSTS.get(name)
        if kind is not None:
            text = value if eq else (argv[i + 1].text or "" if i + 1 < len(argv) else "")
            found.extend(_OPTION_HOSTS[kind](text))
    for text in _git_repositories(argv):
        _found(
            _scp_host(text)
            or (_bare_host(text.rsplit("@", 1)[-1]) if "@" in text.split("/")[0] else None),
            found,
        )
    return found


def _operand_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    """nc, telnet, ftp, ping...: the first operand is the host (and nc's -x proxy)."""
    read = read_options(argv, 1, NC.options)
    found = _option_hosts(NC, argv)
    if read.index < len(argv) and argv[read.index].text:
        _found(_bare_host((argv[read.index].text or "").rsplit("@", 1)[-1]), found)
    return found


_PROGRAM_HOSTS: dict[str, Callable[[str, tuple[Word, ...]], list[str]]] = {
    **dict.fromkeys(("curl", "wget", "http", "https", "xh", "aria2c"), _fetcher_hosts),
    **dict.fromkeys(("ssh", "autossh", "mosh"), _ssh_hosts),
    **dict.fromkeys(("scp", "sftp", "rsync"), _copy_hosts),
    "git": _git_hosts,
}


def _program_hosts(program: str, argv: tuple[Word, ...]) -> list[str]:
    return _PROGRAM_HOSTS.get(program, _operand_hosts)(program, argv)


def _git_repositories(argv: tuple[Word, ...]) -> list[str]:
    """The operands of a git command that name a repository (``git clone URL``, ``git push
    REMOTE``, ``git remote add NAME URL``); refspecs like ``HEAD:main`` are not."""
    operands = [w.text for w in argv[1:] if w.text and not w.text.startswith("-")]
    for index, text in enumerate(operands):
        if text in _GIT_REMOTE_VERBS:
            return operands[index + 1 : index + 2]
        if text == "remote" and index + 1 < len(operands):
            return (
                operands[index + 3 : index + 4] if operands[index + 1] in ("add", "set-url") else []
            )
        if text == "submodule" and operands[index + 1 : index + 2] == ["add"]:
            return operands[index + 2 : index + 3]
    return []


public("toolhooks.kit", command_hosts, hosts_in_text, normalise_host)
