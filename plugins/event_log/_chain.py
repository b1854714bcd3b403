"""The hash chain that makes the log tamper-evident, as one writer appends it.

Every line a writer appends ends with one more field, ``chain``: ``{"writer": W, "seq": N,
"prev": P, "hash": H}``. ``writer`` is this writer's random id (each process, and each child
after a fork, has its own chain), ``seq`` the line's number in that chain from 0, ``prev`` the
``hash`` of the writer's previous line (:data:`GENESIS` for the first), and ``hash`` the
SHA-256 of the line's bytes up to ``,"hash"``, closed with ``}}`` (the JSON the line would be
without its hash). Editing a byte of a line breaks its own hash; deleting, inserting or
reordering lines breaks ``seq`` and ``prev``. A writer keeps its chain across rotation, so the
first line of a new file names the last line of the file before it.

With a key (``key_file``), ``log.checkpoint`` lines carry ``mac``, an HMAC-SHA256 over the
writer, seq, chain head, reason and ``every``, so someone who can write the log but not read the
key cannot rebuild a chain that verifies. A keyed writer puts one: first in every file it writes
to (reason ``"open"`` at seq 0, ``"file"`` when it goes on in a new file after a rotation), after
exactly ``checkpoint_every`` lines since the last one (``"every"``), and at close (``"close"``).
So a chain without the key's opening cannot be added, and a run of more than ``every`` lines
without one is a checkpoint removed; only the lines after a writer's last checkpoint (a writer
still running, or one that crashed) are not covered by the key (``toolhooks logs verify`` says
so). Without a key a whole rewrite (every hash recomputed) is not detected; RELIABILITY.md says
so plainly.

Chaining runs where lines are written (the writer thread with the default durability), never
in ``on_event``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from binascii import hexlify
from collections.abc import Sequence

GENESIS = "0" * 64
"""``prev`` of a chain's first line."""
KEY_ENV = "TOOLHOOKS_LOG_KEY_FILE"


def checkpoint_mac(key: bytes, writer: str, seq: int, prev: str, reason: str, every: int) -> str:
    """The keyed tag a checkpoint carries over the chain head it closes. ``reason`` and
    ``every`` are covered too: the verifier trusts them to say where the next one must be."""
    import hmac  # only a keyed log's checkpoints: not at every start (its import builds tables)

    message = f"toolhooks-log-checkpoint:{writer}:{seq}:{prev}:{reason}:{every}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def read_key(path: str) -> bytes:
    """The key file's bytes (whitespace around them ignored); an empty file is an error."""
    with open(os.path.expanduser(path), "rb") as handle:
        key = handle.read().strip()
    if len(key) < 16:
        raise ValueError(f"{path}: a log key needs at least 16 bytes")
    return key


class Chain:
    """One writer's chain: links lines in the order they are written. Not thread-safe: the
    writer calls it under its I/O lock."""

    __slots__ = ("_head", "_opening", "every", "key", "seq", "since", "writer")

    def __init__(self, key: bytes | None = None, every: int = 1000) -> None:
        # secrets.token_hex(6), without importing secrets (and random) at every start.
        self.writer = os.urandom(6).hex()
        self.seq = 0
        # The head and the bytes before each line's seq are kept as bytes: the chain is linked
        # on every write (on the caller, with durability "call"); only a checkpoint reads text.
        self._head = GENESIS.encode()
        self._opening = b',"chain":{"writer":"%s","seq":' % self.writer.encode()
        self.key = key
        self.every = every
        self.since = 0
        """Lines since the last checkpoint."""

    @property
    def head(self) -> str:
        """The ``hash`` of the last line linked (:data:`GENESIS` before the first)."""
        return self._head.decode()

    def link(self, line: bytes) -> bytes:
        """``line`` (a JSON object and a newline) with its ``chain`` field added."""
        return self.linked((line,))

    def linked(self, lines: Sequence[bytes]) -> bytes:
        """``lines`` (each a JSON object and a newline), each with its ``chain`` field added, as
        one ``bytes``: what the writer writes, in one pass rather than one by one and joined
        (BENCHMARKS.md, choices made for speed)."""
        head, seq, opening, sha256 = self._head, self.seq, self._opening, hashlib.sha256
        out = []
        for line in lines:
            # The encoder's lines end in exactly "}\n": cut it without rstrip's copy.
            start = line[:-2] if line[-2:] == b"}\n" else line.rstrip(b"\n")[:-1]
            body = b'%s%s%d,"prev":"%s"' % (start, opening, seq, head)
            digest = sha256(body)
            digest.update(b"}}")  # the line as it would be without its hash, with no copy
            head = hexlify(digest.digest())
            out.append(b'%s,"hash":"%s"}}\n' % (body, head))
            seq += 1
        self._head, self.seq = head, seq
        self.since += len(out)
        return b"".join(out)

    def keyed(self, lines: Sequence[bytes], new_file: bool, closing: bool = False) -> bytes:
        """What a keyed writer writes for ``lines``: a checkpoint first when this is the first
        write of the chain to this file, one after exactly ``every`` lines since the last, and
        one at the end when ``closing`` (unless the chain already ends in one)."""
        out = []
        if new_file:
            out.append(self.checkpoint("open" if self.seq == 0 else "file"))
        at, every = 0, self.every
        while at < len(lines):
            part = lines[at : at + max(1, every - self.since)]
            out.append(self.linked(part))
            at += len(part)
            if self.since >= every:
                out.append(self.checkpoint("every"))
        if closing and self.since:
            out.append(self.checkpoint("close"))
        return b"".join(out)

    def checkpoint(self, reason: str) -> bytes:
        """A ``log.checkpoint`` line closing the chain so far (keyed when there is a key)."""
        fields: dict[str, object] = {"ts": time.time(), "event": "log.checkpoint"}
        fields["reason"] = reason
        if self.key is not None:
            fields["every"] = self.every
            fields["mac"] = checkpoint_mac(
                self.key, self.writer, self.seq, self.head, reason, self.every
            )
        self.since = 0
        line = self.link(json.dumps(fields, separators=(",", ":")).encode() + b"\n")
        self.since = 0
        return line
