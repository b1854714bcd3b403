"""A web page served over HTTPS on 127.0.0.1, for Claude Code's WebFetch (which upgrades
``http://`` to ``https://``): a throwaway self-signed certificate made by the ``openssl`` CLI,
given to the CLI through ``NODE_EXTRA_CA_CERTS``."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        data = self.server.html.encode()
        self.server.fetched.append(self.path)
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    html: str
    fetched: list[str]


def make_certificate(folder: Path) -> Path | str:
    """A self-signed certificate for 127.0.0.1 (and its key) in ``folder``; a string says why
    none could be made."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return "openssl not on PATH: cannot make the test page's certificate"
    cert, key = folder / "page-cert.pem", folder / "page-key.pem"
    done = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if done.returncode != 0:
        return f"openssl req failed: {done.stderr.strip()[-500:]}"
    return cert


class WebPage:
    """Serve ``html`` at every path of https://127.0.0.1:PORT/ until closed."""

    def __init__(self, html: str, certificate: Path) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.html = html
        self._server.fetched = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, certificate.with_name("page-key.pem"))
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self._server.server_address[1]}"

    @property
    def fetched(self) -> list[str]:
        return list(self._server.fetched)

    def __enter__(self) -> WebPage:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
