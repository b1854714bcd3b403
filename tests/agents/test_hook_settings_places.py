"""Every agent's hook settings place is read from one table (``toolhooks.agents._places``): each
protocol's ``settings_path`` and the rules' own-state guard, which guards them all without
importing every protocol module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolhooks.agents import PROTOCOLS, hook_settings_places, protocol
from toolhooks.agents._places import HOOK_SETTINGS
from toolhooks.agents._settings_files import settings_kind


def test_the_table_names_every_agent_and_each_protocol_reads_it(tmp_path: Path) -> None:
    assert set(HOOK_SETTINGS) == set(PROTOCOLS)
    project, home = tmp_path / "project", tmp_path / "home"
    expected = []
    for agent in PROTOCOLS:
        proto = protocol(agent)
        folder = settings_kind(proto) == "script-dir"
        expected += [(proto.settings_path(scope, project, home), folder)
                     for scope in ("project", "user")]  # fmt: skip
    assert sorted(hook_settings_places(project, home)) == sorted(expected)
    # spot checks, as each agent documents its place
    assert protocol("claude-code").settings_path("user", project, home) == (
        home / ".claude" / "settings.json"
    )
    assert protocol("copilot").settings_path("project", project, home) == (
        project / ".github" / "hooks" / "toolhooks.json"
    )
    assert (project / ".clinerules" / "hooks", True) in hook_settings_places(project, home)


def test_the_places_need_no_protocol_module() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from toolhooks.agents import hook_settings_places\n"
        "hook_settings_places(Path('p'), Path('h'))\n"
        "print(sorted(m for m in sys.modules if m.startswith('toolhooks.agents.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['toolhooks.agents._places']"
