"""The options of the network programs that take a value, so that a value (``-o out.html``)
is never read as the host to fetch."""

from __future__ import annotations

from ._hidden import SSH_OPTIONS
from ._options import Options, read_options
from ._records import Word

CURL = Options(
    short_values="AbcCdDeEFHKmoQrTuUwxXyYzPt",
    long_values=frozenset(
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
        }
    ),
)
WGET = Options(
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
        }
    ),
)
NC = Options(short_values="pswxXiqIOTePWmMbc")


_FROM_FILE = {
    "curl": frozenset({"-K", "--config"}),
    "wget": frozenset({"-i", "--input-file", "--config", "-e", "--execute"}),
    "ssh": frozenset({"-F"}),
    "scp": frozenset({"-F"}),
    "sftp": frozenset({"-F"}),
}


def options_from_file(program: str, argv: tuple[Word, ...]) -> str | None:
    """The option by which ``program`` reads its URLs, hosts or options from a file (``curl
    -K``, ``wget -i``, ``ssh -F``): what it reaches is then unknown; None when it does not."""
    names = _FROM_FILE.get(program)
    if names is None:
        return None
    spec = {"curl": CURL, "wget": WGET}.get(program, SSH_OPTIONS)
    read = read_options(argv, 1, spec)
    for option, value in read.seen:
        if option not in names:
            continue
        if option in ("-e", "--execute"):
            # wget -e: a wgetrc command; only those that name more URLs or hosts read a file
            setting = (value.text or "") if value is not None else ""
            key = setting.split("=", 1)[0].strip().lower().replace("_", "")
            if key not in ("inputfile", "input", "config", "baseurl", "base"):
                continue
        return f"{program} {option}"
    return None
