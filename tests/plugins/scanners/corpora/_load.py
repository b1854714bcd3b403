"""Reading the corpora: JSONL samples and blank-line separated passages."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def jsonl(name: str) -> list[tuple[str, str]]:
    """(note, text) of each line of a JSONL corpus."""
    rows = []
    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            rows.append((record["note"], record["text"]))
    return rows


def passages(name: str) -> list[tuple[str, str]]:
    """(label, text) of each passage: passages are separated by a blank line, the first line of
    each is ``@<language> <style>``; lines before the first passage are the file's header."""
    out = []
    for block in (HERE / name).read_text(encoding="utf-8").split("\n\n"):
        lines = block.strip("\n").split("\n")
        if lines and lines[0].startswith("%%"):
            lines = lines[1:]
        if lines and lines[0].startswith("@"):
            out.append((lines[0][1:], "\n".join(lines[1:])))
    return out


def benign_files() -> dict[str, str]:
    """The benign logs, lockfiles, hashes and blobs, by file name."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((HERE / "benign").iterdir())}
