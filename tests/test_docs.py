"""The docs site builds with warnings as errors, and every Python example in it and in README runs.

Each ```python block runs as a script of its own, in a fresh temporary directory, in a fresh
interpreter with no ``$TOOLHOOKS_CONFIG``. Two markers, HTML comments right before a fence (so
GitHub shows nothing), say more:

- ``<!-- docs-test: output -->`` before a ```text block: that block is exactly what the Python
  block before it prints.
- ``<!-- docs-test: skip (why) -->`` before a ```python block: a fragment that cannot run on its
  own. Keep these rare.

A ```toml block holding only toolhooks tables (``[tools]``, ``[plugins]``, ``[approvals]``,
``[state]``, ``[[rules]]``) is the ``toolhooks.toml`` of the Python blocks after it on the same
page, as a reader who saves both files would have it. Examples in the docs are found in the built doctrees,
so text a page includes from PLUGINS.md or a contrib README is run too.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import pickle
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from toolhooks.testing import require

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SPHINX = (sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html")
CONFIG_TABLES = {"tools", "plugins", "approvals", "state", "rules"}
OUTPUT = "docs-test: output"
SKIP = "docs-test: skip"
PAGES = sorted(
    str(path.relative_to(DOCS).with_suffix(""))
    for path in [*DOCS.rglob("*.md"), *DOCS.rglob("*.rst")]
    if "_build" not in path.parts
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    where: str
    code: str
    expected: str | None
    config: str | None


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test run: under pytest-xdist the workers share one build (the
    first to get the lock builds, the others wait and read its result), so the 30-50 s build
    is not paid once per worker."""
    require(
        importlib.util.find_spec("sphinx") is not None,
        "Sphinx is not installed (the docs extra, Python >= 3.11: pip install -r requirements-dev.txt)",
    )
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Each worker's base temp is <run's temp>/popen-gwN: the parent is this run's alone.
        out = tmp_path_factory.getbasetemp().parent / "docs"
        out.mkdir(exist_ok=True)
    else:
        out = tmp_path_factory.mktemp("docs")
    with (out / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        outcome = out / "outcome.json"
        if not outcome.exists():
            done = subprocess.run(
                [*SPHINX, str(DOCS), str(out / "html"), "-d", str(out / "doctrees")],
                capture_output=True,
                text=True,
                timeout=300,
            )
            outcome.write_text(json.dumps({"returncode": done.returncode, "stderr": done.stderr}))
        result = json.loads(outcome.read_text())
    assert result["returncode"] == 0, result["stderr"]
    assert result["stderr"] == "", result["stderr"]
    return out


def is_config(toml: str) -> bool:
    try:
        data = tomllib.loads(toml)
    except tomllib.TOMLDecodeError:
        return False
    return bool(data) and set(data) <= CONFIG_TABLES


def collect(blocks: list[tuple[str, str, str, str]]) -> list[Example]:
    """(language, text, marker before it, where) in page order -> the runnable examples."""
    examples: list[Example] = []
    config: str | None = None
    for index, (language, text, marker, where) in enumerate(blocks):
        if language == "toml" and is_config(text):
            config = text
        if language != "python" or SKIP in marker:
            continue
        expected = None
        if index + 1 < len(blocks) and OUTPUT in blocks[index + 1][2]:
            expected = blocks[index + 1][1]
        examples.append(Example(where=where, code=text, expected=expected, config=config))
    return examples


def doctree_blocks(doctree: Any) -> list[tuple[str, str, str, str]]:
    from docutils import nodes

    blocks = []
    for block in doctree.findall(nodes.literal_block):
        parent = block.parent
        position = parent.index(block)
        before = parent[position - 1] if position > 0 else None
        marker = before.astext() if isinstance(before, nodes.raw) else ""
        where = f"{block.source}:{block.line}"
        blocks.append((block.get("language", ""), block.astext(), marker, where))
    return blocks


FENCE = re.compile(
    r"(?:^(?P<marker><!--[^\n]*-->)\n)?^```(?P<language>\w*)\n(?P<text>.*?)^```$", re.M | re.S
)


def markdown_blocks(path: Path) -> list[tuple[str, str, str, str]]:
    source = path.read_text(encoding="utf-8")
    return [
        (
            match["language"],
            match["text"],
            match["marker"] or "",
            f"{path.name}:{source.count(chr(10), 0, match.start('text'))}",
        )
        for match in FENCE.finditer(source)
    ]


def run(example: Example, cwd: Path) -> None:
    cwd.mkdir()
    if example.config is not None:
        (cwd / "toolhooks.toml").write_text(example.config)
    script = cwd / "example.py"
    script.write_text(example.code)
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in ("TOOLHOOKS_CONFIG", "TOOLHOOKS_STATE_URL", "TOOLHOOKS_DISABLE_PLUGIN_AUTOLOAD")
    }
    done = subprocess.run(
        [sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, f"{example.where} failed:\n{done.stderr}"
    if example.expected is not None:
        printed = [line.rstrip() for line in done.stdout.strip().splitlines()]
        claimed = [line.rstrip() for line in example.expected.strip().splitlines()]
        assert printed == claimed, f"{example.where} prints something else"


def test_docs_build_with_warnings_as_errors(built: Path):
    """The generated reference is there: hooks, API, every config key, every command."""
    from toolhooks.plugins.loop_detection import LoopDetectionPlugin

    html = built / "html"
    hooks = (html / "reference" / "hooks.html").read_text()
    for hook in ("before_tool_call", "after_tool_call", "tool_visible", "on_event"):
        assert f'id="toolhooks.spec.{hook}"' in hooks
    api = (html / "reference" / "api.html").read_text()
    assert 'id="toolhooks.Runtime.call"' in api and 'id="toolhooks.hookimpl"' in api
    plugins = (html / "reference" / "plugins.html").read_text()
    assert 'id="toolhooks.plugins.policy.PolicyPlugin.explain"' in plugins
    assert 'id="toolhooks.testing.require"' in (html / "reference" / "testing.html").read_text()
    kit = (html / "reference" / "kit.html").read_text()
    assert 'id="toolhooks.kit.canonical_json"' in kit and 'id="toolhooks.kit.SharedState"' in kit
    config = (html / "reference" / "config.html").read_text()
    for key in LoopDetectionPlugin.Config.model_fields:
        assert f'<span class="pre">{key}</span>' in config, key
    cli = (html / "reference" / "cli.html").read_text()
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from toolhooks_docs import commands
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    from toolhooks.cli import build_parser

    every = [path for path, _parser in commands(build_parser(), "toolhooks")]
    assert "toolhooks approvals approve" in every
    for command in every:
        assert f'id="cli-{command.replace(" ", "-")}"' in cli, command
    architecture = (html / "architecture.html").read_text()
    assert "toolhooks.pipeline._conclude" in architecture


@pytest.mark.parametrize("page", PAGES)
def test_every_python_example_on_the_page_runs(built: Path, page: str, tmp_path: Path):
    doctree = pickle.loads((built / "doctrees" / f"{page}.doctree").read_bytes())
    for number, example in enumerate(collect(doctree_blocks(doctree))):
        run(example, tmp_path / str(number))


def test_every_python_example_in_the_readme_runs(tmp_path: Path):
    examples = collect(markdown_blocks(ROOT / "README.md"))
    assert examples, "the README has its quick start"
    for number, example in enumerate(examples):
        run(example, tmp_path / str(number))


def test_the_markers_are_understood():
    """An output block binds to the Python block before it; skip and config work as said."""
    page = [
        ("toml", '[tools]\nprofile = "coding"\n', "", "a:1"),
        ("toml", '[project]\nname = "x"\n', "", "a:2"),
        ("python", "print(1)\n", "", "a:3"),
        ("text", "1\n", "<!-- docs-test: output -->", "a:4"),
        ("python", "import nowhere\n", "<!-- docs-test: skip (a fragment) -->", "a:5"),
        ("python", "print(2)\n", "", "a:6"),
        ("text", "3\n", "", "a:7"),
    ]
    first, second = collect(page)
    assert (first.where, first.expected, first.config) == (
        "a:3",
        "1\n",
        '[tools]\nprofile = "coding"\n',
    )
    assert (second.where, second.expected) == ("a:6", None)


def test_the_examples_are_found_where_the_pages_have_them(built: Path):
    """A collector that found nothing would pass every page: the known examples are counted."""
    found = {}
    for page in PAGES:
        doctree = pickle.loads((built / "doctrees" / f"{page}.doctree").read_bytes())
        found[page] = collect(doctree_blocks(doctree))
    for page in ("tutorial/first-plugin", "tutorial/first-policy", "tutorial/first-approval"):
        assert found[page] and all(example.expected for example in found[page]), page
    assert found["tutorial/first-policy"][0].config is not None
    # PLUGINS.md's example with its output, then the scanners' detectors (run, no output shown).
    assert [bool(example.expected) for example in found["reference/kit"]] == [True, False]
    for page in ("how-to/langchain", "how-to/pydantic-ai", "how-to/openai-agents"):
        assert len(found[page]) == 1, page  # the contrib README's example, included


def test_the_event_model_page_names_every_event(built: Path):
    """The events table is prose, not generated: an event the core adds must be added there."""
    from toolhooks import EVENT_NAMES

    page = (built / "html" / "explanation" / "events.html").read_text()
    missing = [name for name in EVENT_NAMES if f'<span class="pre">{name}</span>' not in page]
    assert missing == []


def test_the_reference_keeps_every_public_fields_docstring_in_source_order(built: Path):
    """A public class's ``__module__`` is its package (``toolhooks.Outcome``), which holds no
    class source: the docs extension reads field docstrings and their order from the module
    ``_EXPORTS`` names (docs/_ext/toolhooks_docs.py, docs/decisions/public-names.md)."""
    import html
    import importlib

    from sphinx.pycode import ModuleAnalyzer

    def squeezed(fragment: str) -> str:  # words only: code spans split text into spans
        return "".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())

    checked = 0
    for package, page in (("toolhooks", "api"), ("toolhooks.kit", "kit")):
        module = importlib.import_module(package)
        rendered = (built / "html" / "reference" / f"{page}.html").read_text()
        for name, defined_in in module._EXPORTS.items():
            if not isinstance(getattr(module, name), type):
                continue
            analyzer = ModuleAnalyzer.for_module(defined_in)
            analyzer.analyze()
            where = []
            for (namespace, attr), lines in analyzer.attr_docs.items():
                if namespace != name or attr.startswith("_"):
                    continue
                at = rendered.find(f'id="{package}.{name}.{attr}"')
                assert at >= 0, f"{package}.{name}.{attr} is not in the reference"
                doc = " ".join(lines).replace("`", "")
                entry = rendered[at : rendered.find("</dd>", at)]
                assert "".join(doc.split()) in squeezed(entry), f"{name}.{attr}: {doc!r}"
                where.append((analyzer.tagorder[f"{name}.{attr}"], at))
                checked += 1
            assert sorted(where) == sorted(where, key=lambda item: item[1]), name
    assert checked >= 10  # Outcome's, Runtime's, StoredApproval's, ... fields


def test_the_site_reads_in_a_browser(built: Path, chromium: Any):
    """The built site in headless Chromium: the tutorial leads the navigation, the promises page
    and the OWASP map are one click from the index, and no page raises a script error."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        page.goto((built / "html" / "index.html").as_uri())
        captions = page.locator(".sidebar-tree p.caption").all_text_contents()
        assert captions[0].strip() == "Tutorial", captions
        page.get_by_role("link", name="What toolhooks guarantees").first.click()
        page.wait_for_load_state()
        assert page.locator("h1").first.text_content() == "What toolhooks guarantees¶"
        page.get_by_role("link", name="OWASP Top 10 for agentic applications").first.click()
        page.wait_for_load_state()
        assert page.locator("table").locator("text=ASI10 Rogue agents").count() == 1
        assert problems == [], problems
    finally:
        context.close()


def test_plugins_md_is_a_guide_under_2300_lines():
    """PLUGINS.md tells the story and points at the reference (docs/reference, the how-tos):
    detail that grows it past 2,300 lines belongs there."""
    lines = (ROOT / "PLUGINS.md").read_text(encoding="utf-8").count("\n")
    assert lines < 2300, f"PLUGINS.md has {lines} lines: move detail to docs/reference or a how-to"
