"""What each program does with its options and arguments, as data: one table per program.

Every part of the analysis that needs a program's facts reads them here, with the one getopt
reading of ``_options``: the walker (which options run a command, change folder, read the
program from stdin, read the URLs from a file), the paths (which options name a file it reads or
sends, attached or spaced, short or long, bundled) and the hosts (which options name a host, a
proxy, a jump host, a repository). A fact written twice drifts: git's global options were, and
``git clone --config=core.sshCommand=...`` ran while ``git clone -c ...`` was denied.

Over 300 lines on purpose: the tables are the content, each program's beside the others'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .._public import public
from ..records._plain import Record
from ._options import Options, read_options
from ._records import Word

FILE = "file"
"""The option's value is a file it reads or sends (``-T F``, ``--upload-file=F``)."""
AT = "at"
"""A file when the value is ``@F`` or ``NAME@F`` (``-d@F``, ``--data-urlencode k@F``)."""
FORM = "form"
"""A file when the value is ``NAME=@F`` or ``NAME=<F`` (curl ``-F``), up to a ``;``."""

PROXY = "proxy"
"""The value is ``[scheme://][user@]host[:port]``."""
JUMP = "jump"
"""A comma-separated list of ssh destinations (``-J a,b``)."""
SSH_OPTION = "ssh-option"
"""An ssh ``Key=Value`` option: ``HostName``, ``ProxyJump`` name hosts."""
CONNECT_TO = "connect-to"
RESOLVE = "resolve"
URL = "url"
"""A URL, or a bare host (``--url``)."""
WGETRC = "wgetrc"
"""A wgetrc command (``-e http_proxy=HOST``)."""
REPOSITORY = "repository"
"""A git repository: a URL, ``[user@]host:path`` or a remote's name."""

NAMES = "names"
"""A list of file names, one a line (``tar -T``, ``rsync --files-from``, ``cpio -o``)."""
PATCH = "patch"
"""A patch: the files its headers name (``patch -i``, ``git apply``)."""

DESTINATION = "destination"
"""Its last operand, the folder it writes to (rsync's ``--delete``)."""
SOURCES = "sources"
"""Every operand but the last (rsync's ``--remove-source-files``)."""


class Program(Record):
    """One program's facts. Option names are written as read: ``-x`` or ``--long``."""

    __slots__ = (
        "copies",
        "deletes",
        "extracts",
        "folders",
        "from_file",
        "hosts",
        "into",
        "lists",
        "options",
        "program_file",
        "reads",
        "runs",
        "slash_contents",
        "stdin_list",
        "stdin_modes",
        "stdin_program",
        "target",
        "url_globs",
    )

    options: Options
    """Which options take a value (the getopt reading of every fact below)."""
    reads: Mapping[str, str]
    """Options naming a file it reads or sends, each with how (FILE, AT, FORM)."""
    runs: Mapping[str, tuple[str, ...]]
    """Options whose value is a command, each with the texts the command follows in its value
    (``("",)``: the whole value; strace's ``("|", "!")``: only a piped output). A key that is
    neither ``-x`` nor ``--long`` is a whole word (zip's ``-TT``)."""
    hosts: Mapping[str, str]
    """Options naming a host, each with how (PROXY, JUMP, SSH_OPTION, ...)."""
    folders: frozenset[str]
    """Options that change the folder its operands are read from (``tar -C``, ``make -C``)."""
    from_file: frozenset[str]
    """Options by which it reads its URLs, hosts or options from a file (``curl -K``)."""
    program_file: frozenset[str]
    """Options naming the file its program is read from; ``-`` or ``/dev/stdin`` is its stdin
    (``awk -f -``, ``make -f -``)."""
    stdin_program: bool
    """It reads commands it may run from stdin when given no program (``ed``, ``dc``)."""
    url_globs: bool
    """Its URLs expand ``{a,b}`` and ``[a-z]`` (curl, unless ``-g``)."""
    deletes: Mapping[str, str]
    """Options by which it deletes what some of its operands hold, as ``rm -r`` would, each with
    which (DESTINATION, SOURCES): the command then also reads as ``rm -r -- THOSE`` (local
    operands only; a prefix of the option counts, as getopt takes one)."""
    copies: bool
    """Its operands are ``SOURCE... DEST``: each source lands at ``DEST/NAME`` when DEST is a
    folder (or named by a ``target`` option), at DEST otherwise; a source naming a folder's
    contents (``SRC/.``) fills DEST with names its command line does not show."""
    target: frozenset[str]
    """Options naming the folder its sources land in (``cp -t DIR``)."""
    slash_contents: bool
    """A source ending in ``/`` names the folder's contents (rsync), not the folder (cp)."""
    extracts: frozenset[str]
    """Options by which it writes the names an archive holds (``tar -x``): with no member named
    on its command line, it fills its folder with names not shown; ``""``: always (unzip)."""
    into: frozenset[str]
    """Options naming the folder it extracts into (``unzip -d``), besides ``folders``."""
    lists: Mapping[str, str]
    """Options naming a file it reads the names of the files it touches from, each with what the
    file is (NAMES, PATCH); ``-`` is its stdin."""
    stdin_list: str | None
    """What it reads from stdin when no ``lists`` option is given: NAMES or PATCH (in one of
    ``stdin_modes``, or with fewer than two operands when there are none: patch)."""
    stdin_modes: frozenset[str]
    """Options in whose mode it reads ``stdin_list`` (``cpio -o``, ``zip -@``)."""

    def __init__(
        self,
        *,
        options: Options | None = None,
        reads: Mapping[str, str] | None = None,
        runs: Mapping[str, tuple[str, ...]] | None = None,
        hosts: Mapping[str, str] | None = None,
        folders: frozenset[str] = frozenset(),
        from_file: frozenset[str] = frozenset(),
        program_file: frozenset[str] = frozenset(),
        stdin_program: bool = False,
        url_globs: bool = False,
        deletes: Mapping[str, str] | None = None,
        copies: bool = False,
        target: frozenset[str] = frozenset(),
        slash_contents: bool = False,
        extracts: frozenset[str] = frozenset(),
        into: frozenset[str] = frozenset(),
        lists: Mapping[str, str] | None = None,
        stdin_list: str | None = None,
        stdin_modes: frozenset[str] = frozenset(),
    ) -> None:
        object.__setattr__(self, "options", Options() if options is None else options)
        object.__setattr__(self, "reads", {} if reads is None else reads)
        object.__setattr__(self, "runs", {} if runs is None else runs)
        object.__setattr__(self, "hosts", {} if hosts is None else hosts)
        object.__setattr__(self, "folders", folders)
        object.__setattr__(self, "from_file", from_file)
        object.__setattr__(self, "program_file", program_file)
        object.__setattr__(self, "stdin_program", stdin_program)
        object.__setattr__(self, "url_globs", url_globs)
        object.__setattr__(self, "deletes", {} if deletes is None else deletes)
        object.__setattr__(self, "copies", copies)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "slash_contents", slash_contents)
        object.__setattr__(self, "extracts", extracts)
        object.__setattr__(self, "into", into)
        object.__setattr__(self, "lists", {} if lists is None else lists)
        object.__setattr__(self, "stdin_list", stdin_list)
        object.__setattr__(self, "stdin_modes", stdin_modes)


_CURL_VALUES = frozenset(
    {
        "user-agent",
        "cookie",
        "cookie-jar",
        "continue-at",
        "data",
        "data-raw",
        "data-binary",
        "data-urlencode",
        "data-ascii",
        "dump-header",
        "referer",
        "cert",
        "form",
        "form-string",
        "header",
        "config",
        "max-time",
        "output",
        "quote",
        "range",
        "upload-file",
        "user",
        "proxy-user",
        "write-out",
        "proxy",
        "request",
        "speed-limit",
        "speed-time",
        "time-cond",
        "ftp-port",
        "telnet-option",
        "connect-to",
        "resolve",
        "preproxy",
        "socks4",
        "socks4a",
        "socks5",
        "socks5-hostname",
        "url",
        "url-query",
        "cacert",
        "capath",
        "key",
        "connect-timeout",
        "retry",
        "retry-delay",
        "retry-max-time",
        "interface",
        "limit-rate",
        "max-filesize",
        "output-dir",
        "json",
        "oauth2-bearer",
        "proxy-header",
        "doh-url",
        "noproxy",
        "variable",
        "expand-url",
        "aws-sigv4",
        "unix-socket",
        "abstract-unix-socket",
        "dns-servers",
        "haproxy-clientip",
        "create-file-mode",
        "trace",
        "trace-ascii",
        "stderr",
        "cert-type",
        "key-type",
        "pass",
        "ciphers",
        "local-port",
        "max-redirs",
        "mail-from",
        "mail-rcpt",
        "login-options",
        "netrc-file",
        "proto",
        "proto-redir",
        "proto-default",
        "pinnedpubkey",
        "keepalive-time",
        "happy-eyeballs-timeout-ms",
        "expect100-timeout",
        "tls-max",
        "alt-svc",
        "hsts",
        "etag-save",
        "etag-compare",
        "ech",
        "ip-tos",
        "vlan-priority",
        "rate",
        "parallel-max",
        "proxy-cacert",
        "proxy-cert",
        "proxy-key",
    }
)
CURL = Program(
    options=Options(short_values="AbcCdDeEFHKmoQrTuUwxXyYzPt", long_values=_CURL_VALUES),
    reads={
        "-d": AT,
        "--data": AT,
        "--data-ascii": AT,
        "--data-binary": AT,
        "--data-urlencode": AT,
        "--json": AT,
        "-F": FORM,
        "--form": FORM,
        "-H": AT,
        "--header": AT,
        "--proxy-header": AT,
        "-w": AT,
        "--write-out": AT,
        "--variable": AT,
        "--url-query": AT,
        "-T": FILE,
        "--upload-file": FILE,
        "-b": FILE,
        "--cookie": FILE,
        "-E": FILE,
        "--cert": FILE,
        "--key": FILE,
        "--cacert": FILE,
        "--netrc-file": FILE,
        "--proxy-cacert": FILE,
        "--proxy-cert": FILE,
        "--proxy-key": FILE,
        "--etag-compare": FILE,
        "--hsts": FILE,
        "--alt-svc": FILE,
    },
    hosts={
        "-x": PROXY,
        "--proxy": PROXY,
        "--preproxy": PROXY,
        "--socks4": PROXY,
        "--socks4a": PROXY,
        "--socks5": PROXY,
        "--socks5-hostname": PROXY,
        "--connect-to": CONNECT_TO,
        "--resolve": RESOLVE,
        "--url": URL,
        "--doh-url": URL,
    },
    from_file=frozenset({"-K", "--config"}),
    url_globs=True,
)
WGET = Program(
    options=Options(
        short_values="oaeOPUiBtTwQYD",
        long_values=frozenset(
            {
                "output-file",
                "append-output",
                "execute",
                "output-document",
                "directory-prefix",
                "user-agent",
                "input-file",
                "base",
                "tries",
                "timeout",
                "wait",
                "quota",
                "header",
                "post-data",
                "post-file",
                "user",
                "password",
                "http-user",
                "http-password",
                "referer",
                "load-cookies",
                "save-cookies",
                "bind-address",
                "domains",
                "exclude-domains",
                "level",
                "method",
                "body-data",
                "body-file",
                "ca-certificate",
                "certificate",
                "private-key",
                "limit-rate",
                "proxy-user",
                "proxy-password",
                "accept",
                "reject",
                "config",
            }
        ),
    ),
    reads={
        "--post-file": FILE,
        "--body-file": FILE,
        "--load-cookies": FILE,
        "--certificate": FILE,
        "--private-key": FILE,
        "--ca-certificate": FILE,
    },
    hosts={"-e": WGETRC, "--execute": WGETRC},
    from_file=frozenset({"-i", "--input-file", "--config", "-e", "--execute"}),
)
"""wget (``-e`` reads a file only for the wgetrc commands that name one: _network)."""
SSH = Program(
    options=Options(short_values="BbcDEeFIiJLlmOoPpQRSWw"),
    reads={"-i": FILE, "-F": FILE},
    hosts={"-J": JUMP, "-o": SSH_OPTION},
    from_file=frozenset({"-F"}),
)
SCP = Program(
    options=Options(short_values="cDFiJloPSX"),
    reads={"-i": FILE, "-F": FILE},
    runs={"-S": ("",)},
    hosts={"-J": JUMP, "-o": SSH_OPTION},
    from_file=frozenset({"-F"}),
)
SFTP = Program(
    options=Options(short_values="BbcDFiJloPRSsX"),
    reads={"-i": FILE, "-F": FILE, "-b": FILE},
    runs={"-S": ("",)},
    hosts={"-J": JUMP, "-o": SSH_OPTION},
    from_file=frozenset({"-F"}),
    program_file=frozenset({"-b"}),
)
"""sftp (a batch file's ``!CMD`` runs a local shell: ``-b -`` reads one from stdin)."""
NC = Program(options=Options(short_values="pswxXiqIOTePWmMbc"), hosts={"-x": PROXY})
RSYNC = Program(
    options=Options(
        short_values="BfMTe@",
        long_values=frozenset(
            {
                "rsh",
                "rsync-path",
                "files-from",
                "exclude-from",
                "include-from",
                "password-file",
                "filter",
                "exclude",
                "include",
                "compare-dest",
                "copy-dest",
                "link-dest",
                "temp-dir",
                "partial-dir",
                "backup-dir",
                "suffix",
                "chmod",
                "chown",
                "log-file",
                "out-format",
                "bwlimit",
                "timeout",
                "contimeout",
                "port",
                "sockopts",
                "block-size",
                "max-size",
                "min-size",
                "max-delete",
                "modify-window",
                "compress-level",
                "compress-choice",
                "checksum-choice",
                "iconv",
                "only-write-batch",
                "write-batch",
                "read-batch",
                "protocol",
                "usermap",
                "groupmap",
                "address",
                "config",
                "dparam",
                "info",
                "debug",
                "stop-after",
                "stop-at",
                "remote-option",
                "outbuf",
                "log-file-format",
                "mkpath",
            }
        ),
    ),
    reads={
        "--files-from": FILE,
        "--exclude-from": FILE,
        "--include-from": FILE,
        "--password-file": FILE,
        "--read-batch": FILE,
    },
    runs={"-e": ("",), "--rsh": ("",), "--rsync-path": ("",)},
    deletes={
        **dict.fromkeys(
            (
                "--del",
                "--delete",
                "--delete-before",
                "--delete-during",
                "--delete-delay",
                "--delete-after",
                "--delete-excluded",
                "--delete-missing-args",
            ),
            DESTINATION,
        ),
        "--remove-source-files": SOURCES,
        "--remove-sent-files": SOURCES,
    },
    copies=True,
    slash_contents=True,
    lists={"--files-from": NAMES},
)
_GIT_VALUES = frozenset(
    {
        "git-dir",
        "work-tree",
        "namespace",
        "config-env",
        "super-prefix",
        "list-cmds",
        "attr-source",
    }
)
GIT = Program(
    options=Options(
        short_values="Cc",
        long_values=_GIT_VALUES,
        long_flags=frozenset(
            {
                "bare",
                "paginate",
                "no-pager",
                "no-replace-objects",
                "literal-pathspecs",
                "glob-pathspecs",
                "noglob-pathspecs",
                "icase-pathspecs",
                "no-optional-locks",
                "html-path",
                "man-path",
                "info-path",
                "version",
                "help",
                "no-lazy-fetch",
                "no-advice",
                "exec-path",
            }
        ),
    ),
    folders=frozenset({"-C"}),
)
"""git's global options (before the subcommand); its subcommands' are in GIT_SUBCOMMAND_RUNS
and GIT_SUBCOMMAND_HOSTS, its config keys in ``git_run_key``."""

GIT_CONFIG_OPTIONS = frozenset({"-c", "--config"})
"""Options of git and of ``git clone`` that set ``KEY=VALUE`` for the command."""
GIT_SUBCOMMAND_RUNS: Mapping[str, tuple[str, ...]] = {
    "--upload-pack": ("",),
    "--receive-pack": ("",),
    "--exec": ("",),
    "--to-cmd": ("",),
    "--cc-cmd": ("",),
    "--header-cmd": ("",),
    "--sendmail-cmd": ("",),
    "--smtp-server": ("/",),
}
"""Options of git's subcommands (clone, fetch, push, send-email, ...) whose value is a command
(``--smtp-server`` is a program when it is a path)."""
GIT_SUBCOMMAND_HOSTS: Mapping[str, str] = {"--repo": REPOSITORY}
"""Options of git's subcommands naming a repository (``git push --repo=host:x``)."""
_GIT_RUN_KEYS = (
    r"(core\.(sshcommand|pager|editor|fsmonitor|askpass|gitproxy)|sequence\.editor|alias\..+|"
    r"credential(\..+)?\.helper|gpg(\..+)?\.program|diff\.external|diff\..+\.(command|textconv)|"
    r"merge\..+\.driver|(merge|diff)tool\..+\.(cmd|path)|filter\..+\.(clean|smudge|process)|"
    r"pager\..+|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|"
    r"interactive\.difffilter|sendemail\.(.+\.)?(smtpserver|tocmd|cccmd|headercmd|sendmailcmd)|"
    r"ssh\.variant|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|gc\..*hook|"
    r"core\.hookspath|trailer\..+\.(command|cmd)|include\.path|includeif\..+\.path|"
    r"protocol\.(ext\.)?allow)\Z"
)
"""git config keys whose value is a command (``!`` before an alias or helper runs a shell), or
that let one run (a hooks folder, an included config file, the ``ext::`` transport). A pattern
compiled when first matched (about 5 M instructions: most processes never see ``git -c``)."""
_GIT_UNSEEN_KEYS = r"(core\.hookspath|include\.path|includeif\..+\.path|protocol\..*)\Z"
"""Of those, the keys whose value is no command but lets unseen code run: opaque."""


def git_run_key(key: str) -> bool:
    """Whether git config key ``key`` (lower case) holds a command or lets one run."""
    return re.match(_GIT_RUN_KEYS, key) is not None


def git_unseen_key(key: str) -> bool:
    """Whether git config key ``key`` (lower case) lets code run that no command line shows."""
    return re.match(_GIT_UNSEEN_KEYS, key) is not None


TAR = Program(
    options=Options(
        short_values="bCfFgHIKLNTVX",
        long_values=frozenset(
            {
                "directory",
                "file",
                "files-from",
                "exclude-from",
                "to-command",
                "use-compress-program",
                "info-script",
                "new-volume-script",
                "rsh-command",
                "checkpoint-action",
                "exclude",
                "transform",
                "xform",
                "owner",
                "group",
                "mode",
                "mtime",
                "newer",
                "after-date",
                "newer-mtime",
                "format",
                "label",
                "blocking-factor",
                "record-size",
                "tape-length",
                "listed-incremental",
                "suffix",
                "index-file",
                "volno-file",
                "quoting-style",
                "sort",
                "strip-components",
                "warning",
                "level",
                "backup",
                "hole-detection",
                "occurrence",
                "pax-option",
                "owner-map",
                "group-map",
                "checkpoint",
            }
        ),
    ),
    reads={"-T": FILE, "--files-from": FILE, "-X": FILE, "--exclude-from": FILE},
    runs={
        "-I": ("",),
        "-F": ("",),
        "--to-command": ("",),
        "--use-compress-program": ("",),
        "--info-script": ("",),
        "--new-volume-script": ("",),
        "--rsh-command": ("",),
        "--checkpoint-action": ("exec=",),
    },
    folders=frozenset({"-C", "--directory"}),
    extracts=frozenset({"-x", "--extract", "--get"}),
    lists={"-T": NAMES, "--files-from": NAMES},
)
MAKE = Program(
    options=Options(
        short_values="CfIjloOWE",
        long_values=frozenset(
            {
                "directory",
                "file",
                "makefile",
                "include-dir",
                "jobs",
                "load-average",
                "old-file",
                "assume-old",
                "output-sync",
                "what-if",
                "new-file",
                "assume-new",
                "eval",
                "debug",
                "jobserver-style",
                "shuffle",
            }
        ),
    ),
    folders=frozenset({"-C", "--directory"}),
    program_file=frozenset({"-f", "--file", "--makefile"}),
)
_AWK = Program(
    options=Options(
        short_values="fvFEil",
        long_values=frozenset(
            {"file", "assign", "field-separator", "exec", "include", "load", "source"}
        ),
    ),
    program_file=frozenset({"-f", "--file", "-E", "--exec", "-i", "--include"}),
)
SED = Program(
    options=Options(
        short_values="efl",
        long_values=frozenset({"expression", "file", "line-length"}),
    ),
    program_file=frozenset({"-f", "--file"}),
)
_COPY_VALUES = frozenset({"target-directory", "suffix"})
_COPY = Program(
    options=Options(short_values="tS", long_values=_COPY_VALUES),
    copies=True,
    target=frozenset({"-t", "--target-directory"}),
)
"""cp, mv, ln: ``SOURCE... DEST`` or ``-t DIR SOURCE...``."""
_INSTALL = Program(
    options=Options(
        short_values="tSmogM",
        long_values=_COPY_VALUES | {"mode", "owner", "group", "strip-program"},
    ),
    copies=True,
    target=frozenset({"-t", "--target-directory"}),
)
_UNZIP = Program(
    options=Options(short_values="dxP"), extracts=frozenset({""}), into=frozenset({"-d"})
)
_CPIO = Program(
    options=Options(
        short_values="CEFHIMORDs",
        long_values=frozenset({"directory", "file", "format", "pattern-file", "owner"}),
    ),
    extracts=frozenset({"-i", "--extract"}),
    into=frozenset({"-D", "--directory"}),
    stdin_list=NAMES,
    stdin_modes=frozenset({"-o", "--create", "-p", "--pass-through"}),
)
_PATCH = Program(
    options=Options(
        short_values="iopBDdFrVYzg",
        long_values=frozenset(
            {
                "input",
                "output",
                "strip",
                "prefix",
                "ifdef",
                "directory",
                "fuzz",
                "reject-file",
                "version-control",
                "basename-prefix",
                "suffix",
                "get",
                "quoting-style",
                "reject-format",
            }
        ),
    ),
    folders=frozenset({"-d", "--directory"}),
    lists={"-i": PATCH, "--input": PATCH},
    stdin_list=PATCH,
)
"""patch: the patch from ``-i``, its second operand, or stdin."""
_STDIN_ONLY = Program(stdin_program=True)
"""Programs that read the commands they run from stdin (``ed``'s ``!cmd``, ``dc``'s ``!``)."""

PROGRAMS: Mapping[str, Program] = {
    "curl": CURL,
    "wget": WGET,
    "ssh": SSH,
    "autossh": SSH,
    "mosh": SSH,
    "scp": SCP,
    "sftp": SFTP,
    "nc": NC,
    "ncat": NC,
    "netcat": NC,
    "rsync": RSYNC,
    "git": GIT,
    "tar": TAR,
    "gtar": TAR,
    "bsdtar": TAR,
    "make": MAKE,
    "gmake": MAKE,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _AWK),
    "sed": SED,
    **dict.fromkeys(("cp", "mv", "ln"), _COPY),
    "install": _INSTALL,
    "unzip": _UNZIP,
    "cpio": _CPIO,
    "gsed": SED,
    **dict.fromkeys(("ed", "red", "ex", "dc", "sqlite3", "expect", "ftp", "lftp"), _STDIN_ONLY),
    "gdb": Program(
        options=Options(
            short_values="xcpsedDiIbB",
            long_values=frozenset(
                {
                    "command",
                    "eval-command",
                    "init-command",
                    "init-eval-command",
                    "pid",
                    "core",
                    "exec",
                    "symbols",
                    "directory",
                    "cd",
                    "se",
                    "tty",
                    "interpreter",
                    "data-directory",
                }
            ),
        ),
        program_file=frozenset({"-x", "--command", "--init-command"}),
    ),
    "strace": Program(
        options=Options(short_values="abeEIoOpPsSuUX", long_values=frozenset({"output"})),
        runs={"-o": ("|", "!"), "--output": ("|", "!")},
    ),
    "ltrace": Program(options=Options(short_values="aAeFlnopsSuwX"), runs={"-o": ("|", "!")}),
    **dict.fromkeys(
        ("npx", "npm", "pnpm"),
        Program(runs={"-c": ("",), "--call": ("",)}),
    ),
    "zip": Program(
        runs={"-TT": ("",), "--unzip-command": ("",)},
        stdin_list=NAMES,
        stdin_modes=frozenset({"-@", "--names-stdin"}),
    ),
    "patch": _PATCH,
}
"""Each program's table; a program not here has no facts beyond its words."""


ENVIRONMENT_HOSTS = frozenset(
    {
        *(f"{scheme}_proxy" for scheme in ("http", "https", "all", "ftp", "rsync")),
        *(f"{scheme}_PROXY" for scheme in ("HTTP", "HTTPS", "ALL", "FTP", "RSYNC")),
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "PIP_TRUSTED_HOST",
        "UV_INDEX_URL",
        "UV_EXTRA_INDEX_URL",
        "UV_DEFAULT_INDEX",
        "UV_INDEX",
        "NPM_CONFIG_REGISTRY",
        "npm_config_registry",
        "YARN_REGISTRY",
        "YARN_NPM_REGISTRY_SERVER",
        "GOPROXY",
        "CARGO_REGISTRY_INDEX",
        "POETRY_REPOSITORIES_URL",
    }
)
"""Variables naming a host programs talk to (proxies, package indexes): set by ``K=V cmd`` or
earlier in the script (``export``, ``declare -x``), they count as each later command's hosts."""
ENVIRONMENT_OWN_PREFIX = "TOOLHOOKS_"
"""toolhooks' own variables (``TOOLHOOKS_CONFIG``, ``TOOLHOOKS_STATE_URL``): set earlier in the
script, they count as each later command's ``K=V`` too, so the guard of toolhooks' state sees a
nested agent started with another config (``export TOOLHOOKS_CONFIG=/dev/null; claude``)."""


def carried(name: str) -> bool:
    """Whether a variable set earlier in a script counts as each later command's ``K=V``."""
    return name in ENVIRONMENT_HOSTS or name.startswith(ENVIRONMENT_OWN_PREFIX)


def program(name: str) -> Program | None:
    """The table of the program called ``name`` (a path's basename), or None."""
    return PROGRAMS.get(name)


def value_options(name: str) -> frozenset[str]:
    """The options of ``name`` that take the next word as their value (``-C``, ``--git-dir``):
    what a reader of its argv steps over (git's global options for the rules' ``command``)."""
    table = PROGRAMS.get(name)
    if table is None:
        return frozenset()
    options = table.options
    return frozenset(
        {f"-{letter}" for letter in options.short_values}
        | {f"--{long}" for long in options.long_values}
    )


def every_option(table: Program, argv: tuple[Word, ...]) -> list[tuple[str, Word | None]]:
    """Each option of ``argv[1:]`` with its value, operands skipped as GNU getopt permutes them
    (``curl URL -d@F``), up to ``--``. A long option the table does not list is read as a flag
    (the word after it is then an operand, which paths and hosts read anyway)."""
    seen: list[tuple[str, Word | None]] = []
    i = 1
    while i < len(argv):
        read = read_options(argv, i, table.options)
        seen.extend(read.seen)
        if read.index >= len(argv) or (read.index > i and argv[read.index - 1].text == "--"):
            break
        if read.problem is not None and (argv[read.index].text or "").startswith("--"):
            seen.append(((argv[read.index].text or "").partition("=")[0], None))
        i = read.index + 1
    return seen


def operands(table: Program, argv: tuple[Word, ...]) -> list[Word]:
    """The operands of ``argv[1:]``, options and their values skipped as GNU getopt permutes
    them, every word after ``--``; a word that cannot be known counts (it may be one)."""
    found: list[Word] = []
    i = 1
    while i < len(argv):
        read = read_options(argv, i, table.options)
        if read.index >= len(argv):
            break
        if read.index > i and argv[read.index - 1].text == "--":
            found.extend(argv[read.index :])
            break
        word = argv[read.index]
        if read.problem is None or word.text is None:
            found.append(word)
        i = read.index + 1  # else an option the table does not list, read as a flag
    return found


MAX_URL_GLOBS = 256
"""A curl URL glob expands to at most this many URLs here; past it the script is opaque."""
_RANGE = r"([a-zA-Z])-([a-zA-Z])(?::(\d+))?\Z|(\d+)-(\d+)(?::(\d+))?\Z"
"""A curl URL range (compiled when first matched)."""


def url_globs(text: str) -> list[str] | None:
    """The URLs curl makes of ``text`` (``{a,b}`` sets, ``[a-z]`` and ``[01-10:2]`` ranges),
    ``[text]`` when it holds no glob, None past MAX_URL_GLOBS (or a range too long)."""
    if "{" not in text and "[" not in text:
        return [text]
    parts: list[list[str]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        closing = {"{": "}", "[": "]"}.get(ch)
        end = text.find(closing, i + 1) if closing else -1
        if ch == "\\" and i + 1 < len(text):
            literal.append(text[i + 1])
            i += 2
            continue
        if closing is None or end < 0:
            literal.append(ch)
            i += 1
            continue
        body = text[i + 1 : end]
        items = body.split(",") if ch == "{" else _range(body)
        if items is None:
            if ch == "[" and ":" in body:
                literal.append(text[i : end + 1])  # an IPv6 address: [::1]
                i = end + 1
                continue
            return None
        parts.append(["".join(literal)])
        parts.append(items)
        literal = []
        i = end + 1
    parts.append(["".join(literal)])
    urls = [""]
    for choices in parts:
        urls = [u + c for u in urls for c in choices]
        if len(urls) > MAX_URL_GLOBS:
            return None
    return urls


def _range(body: str) -> list[str] | None:
    found = re.match(_RANGE, body)
    if found is None:
        return None
    step = int(found.group(3) or found.group(6) or 1) or 1
    if found.group(1):
        a, b = ord(found.group(1)), ord(found.group(2))
        if (b - a) // step >= MAX_URL_GLOBS:
            return None
        return [chr(c) for c in range(a, b + 1, step)]
    first, last = found.group(4), found.group(5)
    if (int(last) - int(first)) // step >= MAX_URL_GLOBS:
        return None
    width = len(first) if first.startswith("0") else 0
    return [str(n).zfill(width) for n in range(int(first), int(last) + 1, step)]


def programs_with(fact: str) -> frozenset[str]:
    """The programs whose table gives ``fact`` (a Program field: "runs", "hosts", ...)."""
    return frozenset(name for name, table in PROGRAMS.items() if getattr(table, fact))


public("toolhooks.kit", value_options)
