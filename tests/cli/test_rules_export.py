"""``toolhooks rules export --cedar`` from the core's side: the format is an add-on's entry point
(group ``toolhooks.rules.exporters``); without it, or with one that fails to load, the command is
a usage error saying what to install, never a traceback. The Cedar itself is tested with the
add-on that writes it (contrib/toolhooks-cedar/tests/test_export.py)."""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pytest
from toolhooks.cli import main
from toolhooks.plugins.rules import starter_policy_path


def entry_points_without_exporters(monkeypatch: pytest.MonkeyPatch, also: list[Any]) -> None:
    real = metadata.entry_points

    def entry_points(**selection: Any) -> Any:
        if selection.get("group") == "toolhooks.rules.exporters":
            return also
        return real(**selection)

    monkeypatch.setattr(metadata, "entry_points", entry_points)


def test_without_the_exporter_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A machine without toolhooks-cedar: its entry point is not there."""
    entry_points_without_exporters(monkeypatch, [])
    code = main(["rules", "export", "--cedar", "--config", str(starter_policy_path())])
    err = capsys.readouterr().err
    assert code == 2
    assert "--cedar needs toolhooks-cedar: pip install toolhooks-cedar" in err
    assert "Traceback" not in err


def test_an_exporter_that_fails_to_load_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = metadata.EntryPoint(
        name="cedar", value="toolhooks_no_such_module:export", group="toolhooks.rules.exporters"
    )
    entry_points_without_exporters(monkeypatch, [broken])
    code = main(["rules", "export", "--cedar", "--config", str(starter_policy_path())])
    err = capsys.readouterr().err
    assert code == 2
    assert "the exporter of toolhooks-cedar failed to load (ModuleNotFoundError" in err
    assert "Traceback" not in err


def test_a_format_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "export", "--config", str(starter_policy_path())]) == 2
    assert "one of the arguments --cedar is required" in capsys.readouterr().err
