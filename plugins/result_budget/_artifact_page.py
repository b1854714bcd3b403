"""``ArtifactPage``: one page of an artifact, a public record made by the first page read (its
class is not made at a start that reads none: ``@dataclass(frozen=True)`` compiles its
``__setattr__`` and ``__delattr__``, about 1.7 M instructions)."""

from __future__ import annotations

from dataclasses import dataclass

from toolhooks.kit import dataclass_methods


@dataclass_methods(frozen=True)
@dataclass(frozen=True, slots=True, init=False, repr=False, eq=False)
class ArtifactPage:
    """One page of an artifact: ``text`` starts at character ``offset`` of ``total_chars``."""

    ref: str
    text: str
    offset: int
    total_chars: int
    next_offset: int | None
    """Where the next page starts, or None when this page reaches the end."""

    def __init__(
        self,
        ref: str,
        text: str,
        offset: int,
        total_chars: int,
        next_offset: int | None,
    ) -> None:
        object.__setattr__(self, "ref", ref)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "total_chars", total_chars)
        object.__setattr__(self, "next_offset", next_offset)

    def header(self) -> str:
        """A one-line description of the page, as ``read_artifact_tool`` shows it."""
        if not self.text:
            return (
                f"[artifact {self.ref}: offset {self.offset} is at or past the end "
                f"({self.total_chars} characters)]"
            )
        end = self.offset + len(self.text)
        more = (
            "end of artifact"
            if self.next_offset is None
            else f"{self.total_chars - end} more; next offset={self.next_offset}"
        )
        return (
            f"[artifact {self.ref}: characters {self.offset}-{end} of {self.total_chars}; {more}]"
        )
