"""Fixtures for the end-to-end tests with the real coding-agent CLIs (issue #26)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from toolhooks.testing import require

# The support modules sit next to this file; pytest's importlib mode does not put it on sys.path.
sys.path.insert(0, str(Path(__file__).parent))

import agent_clis
from fake_models import FakeModelServer, Turn

AGENTS = list(agent_clis.PACKAGES)
_install_report: list[str] = []


@pytest.fixture(scope="session")
def agent_install() -> agent_clis.Installed:
    """The pinned CLIs in the cache folder, installed by this set-up when missing."""
    installed = agent_clis.install()
    if isinstance(installed, str):
        require(False, installed)
        raise AssertionError("unreachable")  # require() skipped or failed
    versions = ", ".join(f"{p}@{v}" for p, v in installed.versions.items())
    how = f"installed in {installed.install_s:.1f} s" if installed.install_s else "cached"
    _install_report.append(f"agent CLIs {versions}: {how} ({agent_clis.CACHE})")
    return installed


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _install_report:
        terminalreporter.write_line(line)


@pytest.fixture
def make_agent(
    agent_install: agent_clis.Installed, tmp_path: Path
) -> Callable[[str], agent_clis.Agent]:
    def make(name: str) -> agent_clis.Agent:
        home = tmp_path / f"home-{name}"
        project = tmp_path / f"project-{name}"
        home.mkdir()
        project.mkdir()
        return agent_clis.Agent(
            name=name, bin_dir=agent_install.bin_dir, home=home, project=project
        )

    return make


@pytest.fixture
def fake_model() -> Iterator[Callable[[list[Turn]], FakeModelServer]]:
    servers: list[FakeModelServer] = []

    def start(script: list[Turn]) -> FakeModelServer:
        server = FakeModelServer(script).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)
