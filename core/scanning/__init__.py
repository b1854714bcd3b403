"""toolhooks.scanning: detectors that say what a text holds (public as ``toolhooks.kit``).

Each is a pure function over a string returning :class:`Finding` s (kind, offsets, a digest;
never the text found): :func:`find_hidden_text`, :func:`find_secrets`, :func:`find_pii`,
:func:`find_instructions`; :func:`redact` replaces findings in a text.
"""

from ._hidden import find_hidden_text
from ._instructions import find_instructions
from ._pii import find_pii
from ._records import Finding, redact
from ._secrets import find_secrets

DETECTORS = {
    "hidden_text": find_hidden_text,
    "secrets": find_secrets,
    "pii": find_pii,
    "instructions": find_instructions,
}
"""Each detector by its name in ``[plugins.scanners.<name>]``."""

__all__ = [
    "DETECTORS",
    "Finding",
    "find_hidden_text",
    "find_instructions",
    "find_pii",
    "find_secrets",
    "redact",
]
