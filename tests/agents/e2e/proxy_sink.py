"""A proxy on 127.0.0.1 that lets nothing through and remembers who tried.

The CLIs get it as HTTP(S)_PROXY (loopback exempt), so a request a setting failed to switch
off shows up here, named by host, instead of leaving the machine.
"""

from __future__ import annotations

import socket
import threading


class ProxySink:
    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    head = conn.recv(4096).decode("latin-1").split("\r\n", 1)[0]
                    self.attempts.append(head)
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def __enter__(self) -> ProxySink:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()
