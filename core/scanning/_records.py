"""A detector's answer: what kind of thing it found, where, and a digest of it (never the text)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .._public import public


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing a detector found in a text.

    ``start`` / ``end`` are offsets into the text that was scanned (``text[start:end]`` is what
    was found); ``digest`` names it without holding it, so an event or a log line can say that
    the same value was seen twice and never what it was.
    """

    detector: str
    """The detector that found it: ``hidden_text``, ``secrets``, ``pii`` or ``instructions``."""
    kind: str
    """What it is, in the detector's words (``github_token``, ``iban``, ``tag_characters``)."""
    start: int
    end: int
    digest: str
    """``sha256:`` and the first 32 hex digits of the SHA-256 of the text found."""


def digest_of(text: str) -> str:
    """The digest a finding carries: the same text gives the same digest in every process.

    A value with few possibilities (a phone number, a card number) can be found again from its
    digest by trying them all; the digest is there to compare findings, not to hide them from a
    reader of the log who already has the candidates."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def finding(detector: str, kind: str, text: str, start: int, end: int) -> Finding:
    return Finding(
        detector=detector, kind=kind, start=start, end=end, digest=digest_of(text[start:end])
    )


def redact(text: str, findings: list[Finding] | tuple[Finding, ...]) -> str:
    """``text`` with each finding replaced by ``[redacted: <kind>]`` (overlapping findings are
    merged: the first one's kind names the span)."""
    if not findings:
        return text
    spans = sorted(findings, key=lambda f: (f.start, -f.end))
    out: list[str] = []
    at = 0
    for item in spans:
        if item.end <= at:
            continue
        start = max(item.start, at)
        out.append(text[at:start])
        if start == item.start:
            out.append(f"[redacted: {item.kind}]")
        at = item.end
    out.append(text[at:])
    return "".join(out)


public("toolhooks.kit", Finding, redact)
