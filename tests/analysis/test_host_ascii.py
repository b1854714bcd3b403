"""An ASCII host name is normalised without the IDNA codec, to what the codec gives it."""

from __future__ import annotations

import random
import string

from toolhooks.kit import normalise_host


def _through_the_codec(host: str) -> str:
    """What ``normalise_host`` made of an ASCII name before it skipped the codec."""
    try:
        return host.encode("idna").decode("ascii").lower()
    except (UnicodeError, ValueError):
        lowered = host.lower()
        return lowered if lowered.isascii() else ""


def test_an_ascii_name_reads_as_the_codec_reads_it() -> None:
    draw = random.Random(44)
    alphabet = string.ascii_letters + string.digits + "._-" + "." * 6
    names = ["Example.COM", "a..b", "." * 3, "x" * 63 + ".com", "x" * 64 + ".com", "a." * 40]
    names += [
        "".join(draw.choice(alphabet) for _ in range(draw.randint(1, 90))) for _ in range(5000)
    ]
    for name in names:
        assert name.lower() == _through_the_codec(name), name
    assert normalise_host("EXAMPLE.com.") == "example.com"
    assert normalise_host("x" * 64 + ".com") == "x" * 64 + ".com"  # as the codec's fallback gave
    assert normalise_host("bücher.example") == "xn--bcher-kva.example"
