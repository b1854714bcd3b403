"""Policy files: the globs expanded, each file split into its policies (with the line each starts
on and the examples written above it), parsed and read back with their annotations.

Cedar's parser reports what is wrong but not where, and numbers policies by position
(``policy0``, ``policy1``, ...). A policy file is therefore also split here, by a small scanner
that knows Cedar's strings and ``//`` comments, into one text per policy: a parse error is then
found in its own policy (so the error names its first line), and the position Cedar gives each
policy maps back to a file and a line.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolhooks import ConfigError

EXAMPLE_PREFIXES = ("match:", "not_match:")
MAX_POLICY_BYTES = 4_000_000
"""A policy file larger than this is refused (a mistake, not a policy)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    """One policy's text as written, with where it starts and the examples above it."""

    text: str
    line: int
    examples: tuple[tuple[Literal["match", "not_match"], str, int], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """One parsed policy: where it is, what it does, and how it is named in a reason."""

    cedar_id: str
    """The id Cedar gives it in the combined set (``policy<N>``)."""
    file: str
    line: int
    effect: Literal["permit", "forbid"]
    annotations: dict[str, str]
    text: str
    examples: tuple[tuple[Literal["match", "not_match"], str, int], ...] = ()

    @property
    def name(self) -> str:
        """Its ``@id``, else its place (``file:line``)."""
        given = self.annotations.get("id")
        return given if given else self.where

    @property
    def called(self) -> str:
        """How an error message names it after its place: ``policy 'id'``, else ``the policy``."""
        given = self.annotations.get("id")
        return f"policy {given!r}" if given else "the policy"

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def asks(self) -> bool:
        return self.effect == "forbid" and self.annotations.get("decision") == "ask"

    @property
    def reason(self) -> str | None:
        return self.annotations.get("reason") or self.annotations.get("id") or None


def expand(patterns: list[str], folder: Path, key: str = "policies") -> list[Path]:
    """The files the globs match (relative to ``folder``), in a stable order, each once; a glob
    that matches no file is a ConfigError naming it."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        full = os.path.join(folder, os.path.expanduser(pattern))
        matched = sorted(Path(p) for p in glob.glob(full, recursive=True) if os.path.isfile(p))
        if not matched:
            raise ConfigError(
                f"[plugins.cedar] {key}: {pattern!r} matches no file (looked in {folder})",
                key=f"plugins.cedar.{key}",
            )
        for path in matched:
            found.setdefault(path.resolve(), None)
    return list(found)


def read_text(path: Path, what: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_POLICY_BYTES:
            raise ConfigError(
                f"{what} is {size:,} bytes (at most {MAX_POLICY_BYTES:,})", file=str(path)
            )
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{what} is not UTF-8 text ({error.reason})", file=str(path)) from None
    except OSError as error:
        raise ConfigError(
            f"{what} cannot be read: {error.strerror or error}", file=str(path)
        ) from None


def split(text: str) -> list[Statement]:
    """The policies of a Cedar file, each with its first line (its first annotation's, when it
    has one) and the ``// match:`` / ``// not_match:`` comment lines written above it or among
    its lines (before its ``;``)."""
    statements: list[Statement] = []
    start = -1  # index of the statement's first character
    start_line = 0
    line = 1
    examples: list[tuple[Literal["match", "not_match"], str, int]] = []
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            line += 1
            i += 1
        elif char == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            # Above the policy or among its lines: the policy's own examples.
            comment = text[i + 2 : end].strip()
            for prefix in EXAMPLE_PREFIXES:
                if comment.startswith(prefix):
                    kind: Literal["match", "not_match"] = (
                        "match" if prefix == "match:" else "not_match"
                    )
                    examples.append((kind, comment[len(prefix) :].strip(), line))
            i = end
        elif char == '"':
            if start < 0:
                start, start_line = i, line
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
            i += 1
        elif char == ";":
            if start >= 0:
                statements.append(
                    Statement(text=text[start : i + 1], line=start_line, examples=tuple(examples))
                )
            start = -1
            examples = []
            i += 1
        else:
            if start < 0 and not char.isspace():
                start, start_line = i, line
            i += 1
    if start >= 0:  # text after the last ';': Cedar reports it; keep it so its line is known
        statements.append(Statement(text=text[start:], line=start_line, examples=tuple(examples)))
    return statements


def parse_file(path: Path, shown: str, first_id: int) -> tuple[list[Policy], str]:
    """The policies of one file, numbered from ``first_id``; a ConfigError names the file, the
    line and the policy that does not parse, or the annotation that is wrong."""
    import cedarpy

    text = read_text(path, f"Cedar policy file {shown}")
    statements = split(text)
    try:
        est = json.loads(cedarpy.policies_to_json_str(text))
    except ValueError as error:
        raise _parse_error(shown, statements, error) from None
    if est.get("templates"):
        raise ConfigError(
            "a Cedar template (a policy with ?principal or ?resource) decides nothing until it "
            "is linked, and toolhooks links none: write the policy for its principal",
            file=shown,
        )
    parsed: dict[str, Any] = est.get("staticPolicies", {})
    if len(parsed) != len(statements):  # the scanner and Cedar disagree: keep Cedar's count
        statements = [Statement(text=s, line=0) for s in [""] * len(parsed)]
    policies = []
    for index, (statement, body) in enumerate(zip(statements, _in_order(parsed), strict=True)):
        annotations = {
            str(k): "" if v is None else str(v) for k, v in body.get("annotations", {}).items()
        }
        policy = Policy(
            cedar_id=f"policy{first_id + index}",
            file=shown,
            line=statement.line,
            effect=body["effect"],
            annotations=annotations,
            text=statement.text,
            examples=statement.examples,
        )
        _check_annotations(policy)
        policies.append(policy)
    return policies, text


def _in_order(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """Cedar's positional ids in number order (``policy10`` after ``policy9``)."""

    def number(key: str) -> int:
        digits = key.removeprefix("policy")
        return int(digits) if digits.isdigit() else 1 << 30

    return [parsed[key] for key in sorted(parsed, key=number)]


def _check_annotations(policy: Policy) -> None:
    decision = policy.annotations.get("decision")
    if decision is None:
        return
    if decision != "ask":
        raise ConfigError(
            f'{policy.called}: @decision({decision!r}) is not known (only @decision("ask"), '
            f"on a forbid: ask a person instead of blocking)",
            file=policy.file,
            line=policy.line or None,
        )
    if policy.effect != "forbid":
        raise ConfigError(
            f'{policy.called}: @decision("ask") goes on a forbid (a permit asks nothing)',
            file=policy.file,
            line=policy.line or None,
        )


def _parse_error(shown: str, statements: list[Statement], error: ValueError) -> ConfigError:
    """The first policy that does not parse on its own, named by its line."""
    import cedarpy

    for statement in statements:
        try:
            cedarpy.policies_to_json_str(statement.text)
        except ValueError as own:
            first = statement.text.strip().splitlines()[0] if statement.text.strip() else ""
            return ConfigError(
                f"Cedar policy does not parse: {_one_line(own)} (the policy starting "
                f"{_clip(first)!r})",
                file=shown,
                line=statement.line,
            )
    return ConfigError(f"Cedar policies do not parse: {_one_line(error)}", file=shown)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
