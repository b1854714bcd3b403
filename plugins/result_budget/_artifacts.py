"""A content-addressed store for full tool results, and the functions that page through it.

An artifact is the UTF-8 text of one result (lone surrogates kept with ``surrogatepass``), in
``<root>/<sha256 hex>.txt``; its reference is ``sha256:<64 lowercase hex digits>``. Writes stream
through a temporary file in the same directory and ``os.replace`` it into place, so readers never
see a partial file, equal content is stored once, and concurrent writers are safe. Offsets and
limits count characters (code points), never bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from toolhooks import ToolhooksError

from ._defaults import DEFAULT_ARTIFACT_DIR
from ._pages import CHUNK, ENCODING, ERRORS, check_int, recall, remember, scan
from ._retention import DEFAULT_MAX_AGE_S, DEFAULT_MAX_BYTES, Retention

if TYPE_CHECKING:
    from ._artifact_page import ArtifactPage

REF_PREFIX = "sha256:"
DEFAULT_LIMIT = 8_000
TOOL_MAX_LIMIT = 15_000
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NO_FOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class ArtifactNotFoundError(ToolhooksError, FileNotFoundError):
    """A well-formed reference with no artifact behind it."""


def parse_ref(ref: object) -> str:
    """The hex digest of ``ref``, or ValueError when it is not ``sha256:<64 hex digits>``."""
    # Compiled at the first reference read (re's cache keeps it), not at every start.
    match = re.fullmatch(r"sha256:([0-9a-f]{64})", ref) if isinstance(ref, str) else None
    if match is None:
        shown = repr(ref) if len(repr(ref)) <= 80 else repr(ref)[:77] + "..."
        raise ValueError(
            f"invalid artifact reference {shown}: expected 'sha256:' followed by 64 lowercase "
            "hexadecimal digits"
        )
    return match.group(1)


# Roots used by stores in this process, most recent last, so that ``read_artifact(ref)`` finds an
# artifact whatever ``artifact_dir`` the plugin was configured with. Bounded.
_roots_lock = threading.Lock()
_roots: OrderedDict[Path, None] = OrderedDict()
_ROOTS_LIMIT = 64


def _register_root(root: Path) -> None:
    with _roots_lock:
        _roots[root] = None
        _roots.move_to_end(root)
        while len(_roots) > _ROOTS_LIMIT:
            _roots.popitem(last=False)


def _lookup_roots() -> list[Path]:
    with _roots_lock:
        known = list(reversed(_roots))
    default = Path(DEFAULT_ARTIFACT_DIR).absolute()
    return [*known, default] if default not in known else known


def _is_artifact_file(path: Path) -> bool:
    """A regular file at ``path`` itself: a symlink planted there is never an artifact."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


class ArtifactStore:
    """The full text of trimmed results, stored by content under ``root`` (default
    ``.toolhooks/artifacts``, relative to the working directory when the store is made).

    The store keeps at most ``max_bytes`` of artifacts, none older than ``max_age_s`` seconds
    (0 turns a limit off); the oldest go first. An artifact file is never a symlink: one found
    at an artifact's path is replaced when that content is stored, and never read through.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = DEFAULT_ARTIFACT_DIR,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_age_s: float = DEFAULT_MAX_AGE_S,
    ) -> None:
        self.root = Path(root).absolute()
        self.retention = Retention(self.root, max_bytes, max_age_s)
        _register_root(self.root)

    @classmethod
    def _at(cls, root: str | os.PathLike[str]) -> ArtifactStore:
        """A store for reading only: ``root`` is not remembered for lookups."""
        store = cls.__new__(cls)
        store.root = Path(root).absolute()
        store.retention = Retention(store.root, 0, 0)
        return store

    def __repr__(self) -> str:
        return f"ArtifactStore({str(self.root)!r})"

    def path(self, ref: str) -> Path:
        """The file that holds ``ref`` (validated; it need not exist)."""
        return self.root / f"{parse_ref(ref)}.txt"

    def exists(self, ref: str) -> bool:
        return _is_artifact_file(self.path(ref))

    def prune(self) -> int:
        """Remove the artifacts over the size or age limit now; how many were removed."""
        return self.retention.prune()

    def put(self, text: str) -> str:
        """Store ``text`` and return its reference. One pass: encode, hash and write together."""
        if not isinstance(text, str):
            raise TypeError(f"an artifact is text, got {type(text).__name__}")
        self.root.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        import tempfile  # only when a result is stored

        fd, temp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                if text.isascii() and len(text) <= CHUNK:
                    data = text.encode("ascii")
                    digest.update(data)
                    out.write(data)
                else:
                    for start in range(0, len(text), CHUNK):
                        data = text[start : start + CHUNK].encode(ENCODING, ERRORS)
                        digest.update(data)
                        out.write(data)
                out_bytes = out.tell()
            hexdigest = digest.hexdigest()
            final = self.root / f"{hexdigest}.txt"
            if _is_artifact_file(final):
                os.unlink(temp)  # same content is already there (content addressing)
                with contextlib.suppress(OSError):
                    os.utime(final)  # stored again: it is the newest for retention
            else:
                os.replace(temp, final)  # a symlink at ``final`` is replaced, not followed
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        remember(hexdigest, len(text), text.isascii())
        self.retention.stored(final.name, out_bytes)
        return REF_PREFIX + hexdigest

    def page(self, ref: str, offset: int = 0, limit: int = DEFAULT_LIMIT) -> ArtifactPage:
        """``limit`` characters of ``ref`` from character ``offset`` (empty past the end)."""
        digest = parse_ref(ref)
        check_int("offset", offset, 0)
        check_int("limit", limit, 1)
        path = self.root / f"{digest}.txt"
        try:
            handle = os.fdopen(os.open(path, _READ_FLAGS), "rb")
        except FileNotFoundError:
            raise ArtifactNotFoundError(f"no artifact {ref} in {self.root}") from None
        except OSError as error:
            if _NO_FOLLOW and os.path.islink(path):
                raise ArtifactNotFoundError(
                    f"no artifact {ref} in {self.root}: {path.name} is a symlink, not followed"
                ) from None
            raise error
        with handle:
            known = recall(digest)
            if known is not None and known[1]:  # ASCII: a character is a byte, seek directly
                total = known[0]
                handle.seek(offset)
                text = handle.read(limit).decode("ascii") if offset < total else ""
            elif known is not None:  # size known: decode only up to the end of the page
                text = scan(handle, offset, limit, to_end=False)[0]
                total = known[0]
            else:
                text, total, ascii_only = scan(handle, offset, limit, to_end=True)
                remember(digest, total, ascii_only)
        end = offset + len(text)
        from ._artifact_page import ArtifactPage  # its class made by the first page read

        return ArtifactPage(REF_PREFIX + digest, text, offset, total, end if end < total else None)

    def read(self, ref: str, offset: int = 0, limit: int = DEFAULT_LIMIT) -> str:
        """The text of :meth:`page`."""
        return self.page(ref, offset, limit).text


def _find_store(ref: str) -> ArtifactStore:
    digest = parse_ref(ref)
    roots = _lookup_roots()
    for root in roots:
        if _is_artifact_file(root / f"{digest}.txt"):
            return ArtifactStore._at(root)
    places = ", ".join(str(root) for root in roots)
    raise ArtifactNotFoundError(f"no artifact {ref} (looked in {places})")


def read_artifact_page(
    ref: str,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    root: str | os.PathLike[str] | None = None,
) -> ArtifactPage:
    """Like :func:`read_artifact`, with the page's position and the artifact's size."""
    store = _find_store(ref) if root is None else ArtifactStore._at(root)
    return store.page(ref, offset, limit)


def read_artifact(
    ref: str,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    root: str | os.PathLike[str] | None = None,
) -> str:
    """Characters ``offset`` to ``offset + limit`` of the artifact ``ref`` ("" past the end).

    :param ref: ``sha256:<64 hex digits>``, as ``Outcome.artifact`` and the notice give it;
        anything else raises ValueError (so no path can be smuggled in).
    :param offset: First character, >= 0.
    :param limit: Most characters returned, >= 1.
    :param root: The store's directory. None looks in the directories of the stores made in this
        process (most recent first), then in ``.toolhooks/artifacts``.
    :raises ArtifactNotFoundError: (a FileNotFoundError) when no such artifact exists.
    """
    return read_artifact_page(ref, offset, limit, root).text


def read_artifact_tool(ref: str, offset: int = 0, limit: int = DEFAULT_LIMIT) -> str:
    """Read part of a tool result that was too long and was stored as an artifact.

    A trimmed result ends with a notice naming its artifact (``sha256:...``) and the offset where
    the omitted part begins. The answer starts with a line giving the characters shown, the
    total and the next offset, followed by the text.

    :param ref: The artifact reference from the notice, "sha256:" and 64 hex digits.
    :param offset: The character to start at (0 is the beginning).
    :param limit: How many characters to return (at most 15000).
    """
    check_int("limit", limit, 1)
    page = read_artifact_page(ref, offset, min(limit, TOOL_MAX_LIMIT))
    return f"{page.header()}\n{page.text}" if page.text else page.header()
