"""The detectors on the corpora (tests/plugins/scanners/corpora, README.md there): hidden
text 100 % found and nothing on benign Unicode; secrets as many as detect-secrets finds on the
same samples and nothing on benign logs, lockfiles, hashes and blobs; instructions at least
95 % found and at most 1 % of the benign imperatives."""

from __future__ import annotations

import importlib.util

import pytest
from toolhooks.kit import find_hidden_text, find_instructions, find_pii, find_secrets
from toolhooks.testing import require

from .corpora import fake_pii, fake_secrets
from .corpora._load import benign_files, jsonl, passages


def test_hidden_text_finds_every_payload():
    missed = [note for note, text in jsonl("hidden_payloads.jsonl") if not find_hidden_text(text)]
    assert missed == []


def test_hidden_text_finds_nothing_in_benign_unicode():
    found = {
        note: f for note, text in jsonl("hidden_benign.jsonl") if (f := find_hidden_text(text))
    }
    assert found == {}


def test_secrets_find_every_format_once_with_its_kind():
    samples = fake_secrets.samples()
    assert len({kind for kind, _ in samples}) >= 37
    got = [(kind, [f.kind for f in find_secrets(text)]) for kind, text in samples]
    wrong = [(kind, found) for kind, found in got if found != [kind]]
    assert wrong == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_secrets_on_other_seeds(seed):
    """Another draw of the same formats: a checksum or a pattern that only fits one draw fails."""
    missed = [kind for kind, text in fake_secrets.samples(seed) if not find_secrets(text)]
    assert missed == []


def test_nothing_but_e_mail_addresses_in_the_benign_files():
    for name, text in benign_files().items():
        assert find_secrets(text) == [], name
        assert find_hidden_text(text) == [], name
        assert find_instructions(text) == [], name
        assert {f.kind for f in find_pii(text)} <= {"email"}, name


def test_secrets_recall_is_at_least_detect_secrets():
    require(
        importlib.util.find_spec("detect_secrets") is not None,
        "detect-secrets is a test extra (pip install -e .[test])",
    )
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    samples = fake_secrets.samples()
    with default_settings():
        theirs = sum(
            1
            for _, text in samples
            if any(True for line in text.splitlines() for _ in scan_line(line))
        )
        benign_theirs = sum(
            1
            for text in benign_files().values()
            for line in text.splitlines()
            for _ in scan_line(line)
        )
    ours = sum(1 for _, text in samples if find_secrets(text))
    assert ours >= theirs
    assert ours == len(samples)
    # What the comparison is worth: detect-secrets reports hashes and ids in the benign files.
    assert benign_theirs > 0


def test_pii_finds_each_sample_and_nothing_in_numbers_that_are_not_pii():
    got = [(kind, [f.kind for f in find_pii(text)]) for kind, text in fake_pii.samples()]
    wrong = [(kind, found) for kind, found in got if found != [kind]]
    assert wrong == []
    assert find_pii(fake_pii.BENIGN) == []


def test_instructions_find_at_least_95_percent_of_the_injections():
    corpus = passages("injections.txt")
    languages = {label.split()[0] for label, _ in corpus}
    assert {"en", "de", "fr", "es"} <= languages and len(corpus) >= 70
    missed = [label for label, text in corpus if not find_instructions(text)]
    assert len(missed) <= 0.05 * len(corpus), missed


def test_instructions_find_at_most_1_percent_of_the_benign_imperatives():
    corpus = passages("imperatives.txt")
    languages = {label.split()[0] for label, _ in corpus}
    assert {"en", "de", "fr", "es"} <= languages and len(corpus) >= 90
    found = [label for label, text in corpus if find_instructions(text)]
    assert len(found) <= 0.01 * len(corpus), found
