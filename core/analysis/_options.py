"""Reading a program's own options the way getopt does, so the word after them is found."""

from __future__ import annotations

from ..records._plain import Record
from ._records import Word


class Options(Record):
    """What a program's options look like: which take a value.

    Long options not listed make the reading fail (getopt accepts an unambiguous prefix, so an
    option we do not know could be a prefix of one that takes a value and hide the command after
    it); unknown short options count as flags (the program would refuse them and run nothing).
    """

    __slots__ = ("long_flags", "long_values", "numeric", "plus", "short_values")

    short_values: str
    long_values: frozenset[str]
    long_flags: frozenset[str]
    numeric: bool
    """``-10`` is an option (nice)."""
    plus: bool
    """``+o`` reads like ``-o`` (the shells)."""

    def __init__(
        self,
        *,
        short_values: str = "",
        long_values: frozenset[str] = frozenset(),
        long_flags: frozenset[str] = frozenset(),
        numeric: bool = False,
        plus: bool = False,
    ) -> None:
        object.__setattr__(self, "short_values", short_values)
        object.__setattr__(self, "long_values", long_values)
        object.__setattr__(self, "long_flags", long_flags)
        object.__setattr__(self, "numeric", numeric)
        object.__setattr__(self, "plus", plus)


class Read:
    """The outcome of reading options from ``argv[start:]`` (a plain class, not a dataclass:
    its generated methods would be compiled at every start)."""

    __slots__ = ("index", "problem", "seen", "value_indexes")

    def __init__(self, *, index: int = 0) -> None:
        self.index = index
        """The first operand (len(argv) when there is none)."""
        self.seen: list[tuple[str, Word | None]] = []
        """Each option, as ``-x`` or ``--long``, with its value."""
        self.value_indexes: list[int] = []
        """argv indexes that are the value of the option before them."""
        self.problem: str | None = None


def read_options(argv: tuple[Word, ...], start: int, spec: Options) -> Read:
    """Read options from ``argv[start]`` on, up to the first operand or ``--``."""
    read = Read(index=len(argv))
    i = start
    while i < len(argv):
        text = argv[i].text
        if text is None:
            read.problem = f"an unknown word among the options: {argv[i].source}"
            read.index = i
            return read
        if text == "--":
            read.index = i + 1
            return read
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            full = _long(name[2:], spec)
            if full is None:
                read.problem = f"an option it is not known to take: {text}"
                read.index = i
                return read
            if full in spec.long_values and not eq:
                if i + 1 < len(argv):
                    read.seen.append((f"--{full}", argv[i + 1]))
                    read.value_indexes.append(i + 1)
                else:
                    read.seen.append((f"--{full}", None))
                i += 2
                continue
            read.seen.append((f"--{full}", Word(text=value, source=text) if eq else None))
            i += 1
            continue
        if len(text) > 1 and (text[0] == "-" or (spec.plus and text[0] == "+")):
            if spec.numeric and text[1:].isdigit():
                read.seen.append((text, None))
                i += 1
                continue
            consumed = _short(argv, i, spec, read)
            i += consumed
            continue
        read.index = i
        return read
    return read


def _short(argv: tuple[Word, ...], i: int, spec: Options, read: Read) -> int:
    text = argv[i].text or ""
    sign = text[0]
    for j in range(1, len(text)):
        letter = text[j]
        if letter in spec.short_values:
            rest = text[j + 1 :]
            if rest:
                read.seen.append((sign + letter, Word(text=rest, source=text)))
                return 1
            if i + 1 < len(argv):
                read.seen.append((sign + letter, argv[i + 1]))
                read.value_indexes.append(i + 1)
            else:
                read.seen.append((sign + letter, None))
            return 2
        read.seen.append((sign + letter, None))
    return 1


def _long(name: str, spec: Options) -> str | None:
    if name in spec.long_values or name in spec.long_flags:
        return name
    candidates = [o for o in (*spec.long_values, *spec.long_flags) if o.startswith(name)]
    return candidates[0] if len(candidates) == 1 and name else None
