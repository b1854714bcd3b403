"""Install the real coding-agent CLIs from npm into a cache folder, and run them offline.

Each CLI gets a throwaway HOME, is pointed at the fake model on 127.0.0.1, and has its
telemetry, update checks and plugin sync switched off; every other host goes to a dead proxy
on 127.0.0.1, so nothing leaves the machine even if a CLI ignores a setting.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(
    os.environ.get("TOOLHOOKS_TEST_AGENTS_DIR")
    or Path.home() / ".cache" / "toolhooks-tests" / "agents"
)

# Pinned: a CLI's hook payloads change between releases, and the tests assert on them.
PACKAGES = {
    "claude-code": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
}

INSTALL_TIMEOUT_S = 300
_NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error", "--save-exact"]
RUN_TIMEOUT_S = 120


@dataclass(frozen=True, slots=True, kw_only=True)
class Installed:
    bin_dir: Path
    install_s: float  # 0 when the cache already held the pinned versions
    versions: dict[str, str]


def installed_version(package: str) -> str | None:
    manifest = CACHE / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def install() -> Installed | str:
    """Install the pinned CLIs once (file-locked); a string says why that was impossible."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return "npm/node not on PATH: cannot install the coding-agent CLIs"
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted = {pkg: version for pkg, version, _ in PACKAGES.values()}
        missing = [f"{p}@{v}" for p, v in wanted.items() if installed_version(p) != v]
        started = time.monotonic()
        if missing:
            done = subprocess.run(
                [npm, "install", "--prefix", str(CACHE), *_NPM_QUIET, *missing],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
                env={**os.environ, "NO_UPDATE_NOTIFIER": "1"},
            )
            if done.returncode != 0:
                return f"npm install {' '.join(missing)} failed: {done.stderr.strip()[-2000:]}"
        elapsed = time.monotonic() - started if missing else 0.0
    return Installed(bin_dir=CACHE / "node_modules" / ".bin", install_s=elapsed, versions=wanted)


DEAD_PROXY = "http://127.0.0.1:9"


def base_env(home: Path, proxy: str = DEAD_PROXY) -> dict[str, str]:
    """What every CLI run gets: no inherited credentials, a private HOME, a dead proxy."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join([venv_bin, str(CACHE / "node_modules" / ".bin"), "/usr/bin", "/bin"])
    node = shutil.which("node")
    if node:
        path = os.pathsep.join([path, str(Path(node).parent)])
    env = {
        "PATH": path,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        # Anything that tries to leave 127.0.0.1 hits a closed port on loopback.
        "HTTP_PROXY": proxy,
        "HTTPS_PROXY": proxy,
        "http_proxy": proxy,
        "https_proxy": proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for keep in ("PYTHONPATH", "TMPDIR", "TOOLHOOKS_CONFIG"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    return env


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> Run:
    started = time.monotonic()
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    return Run(
        returncode=done.returncode,
        stdout=done.stdout,
        stderr=done.stderr,
        seconds=time.monotonic() - started,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Agent:
    """One CLI: how to point it at the fake model and run one prompt non-interactively."""

    name: str
    bin_dir: Path
    home: Path
    project: Path
    proxy: str = DEAD_PROXY

    def prepare(self, model_url: str) -> dict[str, str]:
        """Write the CLI's user settings under HOME; return the environment to run it with."""
        env = base_env(self.home, self.proxy)
        if self.name == "claude-code":
            # WebFetch asks api.anthropic.com whether a host may be fetched first; offline that
            # fails and the fetch is refused. The setting is the documented way round it.
            settings = self.home / ".claude" / "settings.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(json.dumps({"skipWebFetchPreflight": True}))
            env |= {
                "ANTHROPIC_BASE_URL": model_url,
                "ANTHROPIC_API_KEY": "sk-fake-test-key",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
        elif self.name == "codex":
            codex_home = self.home / ".codex"
            codex_home.mkdir(parents=True, exist_ok=True)
            (codex_home / "config.toml").write_text(_codex_config(model_url, self.project))
            env |= {"CODEX_HOME": str(codex_home), "FAKE_API_KEY": "sk-fake-test-key"}
        elif self.name == "gemini":
            settings = self.home / ".gemini" / "settings.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(json.dumps(_GEMINI_USER_SETTINGS, indent=2))
            env |= {
                "GEMINI_API_KEY": "fake-test-key",
                "GOOGLE_GEMINI_BASE_URL": model_url,
                "GEMINI_CLI_NO_RELAUNCH": "true",
            }
        return env

    def argv(self, prompt: str) -> list[str]:
        exe = str(self.bin_dir / PACKAGES[self.name][2])
        if self.name == "claude-code":
            allowed = ["--allowedTools", "Bash", "WebFetch"]
            return [exe, "-p", prompt, "--output-format", "json", *allowed]
        if self.name == "codex":
            # Codex runs a hook only once someone trusted its exact text (/hooks in the TUI);
            # a test cannot click that, and the flag is Codex's own way for automation.
            trust = "--dangerously-bypass-hook-trust"
            return [exe, "exec", "--skip-git-repo-check", trust, prompt]
        return [exe, "-p", prompt, "--yolo", "--output-format", "json"]

    def run(self, prompt: str, model_url: str, extra_env: dict[str, str] | None = None) -> Run:
        env = self.prepare(model_url) | (extra_env or {})
        return run(self.argv(prompt), cwd=self.project, env=env)


def _codex_config(model_url: str, project: Path) -> str:
    return f"""\
model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[otel]
exporter = "none"

[features]
hooks = true
plugins = false

[model_providers.fake]
name = "fake"
base_url = "{model_url}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.{json.dumps(str(project))}]
trust_level = "trusted"
"""


_GEMINI_USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "hooksConfig": {"enabled": True},
}


# Where each CLI reads a project's hooks, and the event names around a tool call.
HOOK_EVENTS = {
    "claude-code": ("PreToolUse", ["PostToolUse", "PostToolUseFailure"]),
    "codex": ("PreToolUse", ["PostToolUse"]),
    "gemini": ("BeforeTool", ["AfterTool"]),
}


def write_project_hooks(agent: str, project: Path, command: str) -> Path:
    """Wire one command to every before/after event, the way each CLI documents it."""
    before, after = HOOK_EVENTS[agent]
    entry = {"type": "command", "command": command}
    if agent == "claude-code":
        target = project / ".claude" / "settings.json"
        matcher = "*"
    elif agent == "codex":
        target = project / ".codex" / "hooks.json"
        matcher = ".*"
    else:
        target = project / ".gemini" / "settings.json"
        matcher = ".*"
        entry["name"] = "capture"
    hooks = {event: [{"matcher": matcher, "hooks": [entry]}] for event in [before, *after]}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"hooks": hooks}, indent=2))
    return target
