"""Reading an artifact a page at a time: offsets and limits in characters, the file decoded in
chunks only as far as the page needs, and each digest's character count and ASCII-ness
remembered so a second page of a known artifact seeks instead of decoding from the start."""

from __future__ import annotations

import codecs
import threading
from collections import OrderedDict
from typing import BinaryIO

ENCODING = "utf-8"
ERRORS = "surrogatepass"
CHUNK = 1 << 20  # characters per encoded write, bytes per read


def check_int(name: str, value: object, minimum: int) -> int:
    if type(value) is not int:
        raise ValueError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


# Character count and ASCII-ness per digest: content addressing makes these the same in every
# root. Known for what this process wrote; learned by one scan for the rest. Bounded.
_meta_lock = threading.Lock()
_meta: OrderedDict[str, tuple[int, bool]] = OrderedDict()
_META_LIMIT = 4_096


def remember(digest: str, chars: int, ascii_only: bool) -> None:
    with _meta_lock:
        _meta[digest] = (chars, ascii_only)
        _meta.move_to_end(digest)
        while len(_meta) > _META_LIMIT:
            _meta.popitem(last=False)


def recall(digest: str) -> tuple[int, bool] | None:
    with _meta_lock:
        return _meta.get(digest)


def scan(handle: BinaryIO, offset: int, limit: int, to_end: bool) -> tuple[str, int, bool]:
    """Decode the file in chunks: the page's text, the characters seen, ASCII or not.

    With ``to_end`` the whole file is read (so the count is the total); otherwise reading stops
    once the page is complete.
    """
    read = handle.read
    decoder = codecs.getincrementaldecoder(ENCODING)(ERRORS)
    stop = offset + limit
    position = 0
    parts: list[str] = []
    ascii_only = True
    while True:
        chunk: bytes = read(CHUNK)
        if not chunk:
            tail = decoder.decode(b"", final=True)
            if tail and position < stop:
                parts.append(tail[max(0, offset - position) : stop - position])
            position += len(tail)
            break
        if chunk.isascii() and not decoder.getstate()[0]:
            count = len(chunk)
            if position < stop and position + count > offset:
                lo, hi = max(0, offset - position), min(count, stop - position)
                parts.append(chunk[lo:hi].decode("ascii"))
        else:
            ascii_only = False
            decoded = decoder.decode(chunk)
            count = len(decoded)
            if position < stop and position + count > offset:
                parts.append(decoded[max(0, offset - position) : stop - position])
        position += count
        if not to_end and position >= stop:
            break
    return "".join(parts), position, ascii_only
