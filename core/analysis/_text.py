"""Source text before parsing: line continuations removed as bash removes them, and what a
program name may hold."""

from __future__ import annotations


def join_continued_lines(text: str) -> str:
    """``text`` with each backslash-newline outside single quotes removed.

    Bash drops a backslash-newline before it splits words (``r\\<newline>m`` is ``rm``), but
    tree-sitter-bash keeps the two halves apart, so the lines are joined first. Single quotes,
    ``$'...'`` strings and comments keep theirs, as in bash.
    """
    if "\\\n" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    word_start = True
    in_double = False
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                i += 2
                continue
            out.append(text[i : i + 2])
            i += 2
            word_start = False
            continue
        if ch == '"':
            in_double = not in_double
        elif in_double:
            pass
        elif ch == "'" and not (out and out[-1].endswith("$")):
            end = text.find("'", i + 1)
            end = n if end < 0 else end + 1
            out.append(text[i:end])
            i = end
            word_start = False
            continue
        elif ch == "'":  # $'...': backslash escapes, ends at an unescaped quote
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            word_start = False
            continue
        elif ch == "#" and word_start:
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end])
            i = end
            continue
        out.append(ch)
        word_start = ch in " \t\n;&|()<>"
        i += 1
    return "".join(out)


def plain_program_name(name: str) -> bool:
    """Whether ``name`` is printable ASCII alone.

    A look-alike (fullwidth letters, zero-width characters, a Cyrillic er for ``p``) names a different
    file than the command it imitates, but a rule cannot say which, so such a name makes the
    script opaque rather than being normalised into a match or a miss
    (docs/decisions/rules-shell-analysis.md).
    """
    return name.isascii() and name.isprintable()
