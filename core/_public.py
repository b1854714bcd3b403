"""Public names show where users import them from (``toolhooks.ToolCall``), not where they live.

A module that defines a name of a public package's ``_EXPORTS`` (``toolhooks``,
``toolhooks.kit``) ends with ``public("toolhooks", ToolCall, ToolSpec)``: reprs, tracebacks,
pickles and the reference docs then say ``toolhooks.ToolCall``, whichever module was imported
first. The packages cannot do it themselves: they import lazily, so a name set on first use
through the package would depend on import order; and the layers forbid the core's modules from
importing the facade. tests/architecture/test_public_names.py proves every class and function of
every ``_EXPORTS`` is named (docs/decisions/public-names.md).

It imports nothing: every module with a public name imports it, the cold start included.
"""


def public(package: str, *objects: object) -> None:
    """Name each of ``objects`` (classes and functions) as an attribute of ``package``."""
    for obj in objects:
        obj.__module__ = package
