"""The desk in headless Chromium (Debian's, driven by Playwright): a real agent process defers,
the page shows it live, a click decides, the agent's call completes. Hostile text stays text.

TOOLHOOKS_UPDATE_SCREENSHOT=1 also writes docs/img/desk.png, the README's screenshot.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import SECRETS
from .desk_agent import HOSTILE

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "desk.png"
WAIT_MS = 30_000


@pytest.fixture
def page(chromium, served):
    context = chromium.new_context(viewport={"width": 1180, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    # The sign-in page answers 401 by design; what must never happen is a script error or a
    # Content-Security-Policy refusal (which would mean the page relies on something it forbids).
    page.on("console", lambda m: problems.append(m.text) if "Refused" in m.text else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(WAIT_MS)
    page.goto(served.url)
    page.fill('input[name="token"]', SECRETS["alice"])
    page.click('button[type="submit"]')
    page.wait_for_selector("#live[data-state='live']")
    page.problems = problems
    yield page
    context.close()
    assert problems == [], problems  # no script error, no CSP violation


def shown_as(page, approval_id: str, result: str) -> None:
    """Wait until the card of ``approval_id`` shows ``result`` (the page polls the outcome)."""
    page.wait_for_function(
        "([id, kind]) => document.querySelector(`article[data-id='${id}'] output.result`)"
        "?.dataset.kind === kind",
        arg=[approval_id, result],
    )


def test_a_deferred_call_shows_up_live_and_one_click_lets_the_agent_finish(page, agent_process):
    assert page.locator("article.card").count() == 0
    agent = agent_process({"path": "notes.txt", "text": "hello"})
    approval_id = agent.said()["pending"]
    card = page.locator(f"article.card[data-id='{approval_id}']")
    card.wait_for()  # arrives over server-sent events, no reload
    assert card.locator(".tool").text_content() == "write"
    row = card.locator("tr.rewritten")
    assert row.locator("th").text_content() == "path"
    assert '"/ws/notes.txt"' in row.locator("td").nth(0).text_content()
    assert '"notes.txt"' in row.locator("pre.proposed").text_content()
    assert "expires in" in card.locator(".countdown").text_content()
    if os.environ.get("TOOLHOOKS_UPDATE_SCREENSHOT"):
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), clip={"x": 0, "y": 0, "width": 1180, "height": 570})
    card.locator("button[data-decision='allow-once']").click()
    done = agent.said()
    assert done["status"] == "ok" and done["content"] == "wrote 5 chars to /ws/notes.txt"
    shown_as(page, approval_id, "approved")
    page.goto(page.url.rsplit("/", 1)[0] + "/history")
    assert "alice" in page.locator("table.list tbody").text_content()


def test_an_edit_is_checked_in_the_page_then_flows_through_the_chain(page, agent_process):
    agent = agent_process({"path": "a.txt", "text": "first"})
    approval_id = agent.said()["pending"]
    card = page.locator(f"article.card[data-id='{approval_id}']")
    card.locator("button.open-edit").click()
    box = card.locator("textarea.edit-params")
    box.fill('{"path": "/ws/b.txt"}')  # the schema requires text
    card.locator("button[data-decision='edit']").click()
    assert "text: required" in card.locator("ul.edit-errors").text_content()
    box.fill('{"path": "/ws/b.txt", "text": 5}')
    card.locator("button[data-decision='edit']").click()
    assert "expected string" in card.locator("ul.edit-errors").text_content()
    box.fill('{"path": "/ws/b.txt", "text": "edited"}')
    card.locator("button[data-decision='edit']").click()
    done = agent.said()
    assert done["status"] == "ok" and done["params"] == {"path": "/ws/b.txt", "text": "edited"}
    shown_as(page, approval_id, "approved-as-edited")


def test_an_edit_the_chain_changes_again_shows_a_new_approval(page, agent_process):
    agent = agent_process({"path": "a.txt", "text": "x"})
    first = agent.said()["pending"]
    card = page.locator(f"article.card[data-id='{first}']")
    card.locator("button.open-edit").click()
    card.locator("textarea.edit-params").fill('{"path": "elsewhere.txt", "text": "x"}')
    card.locator("button[data-decision='edit']").click()
    second = agent.said()["pending"]
    assert second != first
    page.locator(f"article.card[data-id='{second}']").wait_for()
    shown_as(page, first, "new-approval")
    assert "new approval" in card.locator("output.result").text_content()
    page.locator(f"article.card[data-id='{second}'] button[data-decision='deny']").click()
    assert agent.said()["status"] == "denied"


def test_a_hostile_tool_name_and_description_render_as_text(page, agent_process):
    agent = agent_process({"path": "/ws/x", "text": HOSTILE}, "--hostile")
    approval_id = agent.said()["pending"]
    card = page.locator(f"article.card[data-id='{approval_id}']")
    card.wait_for()
    assert card.locator(".tool").text_content() == HOSTILE
    assert card.locator("h2.title").text_content() == HOSTILE
    assert card.locator("p.description").text_content() == HOSTILE
    assert page.locator("article.card img, article.card script").count() == 0
    assert page.title() != "pwned"
    card.locator("input.reason").fill(HOSTILE)
    card.locator("button[data-decision='deny']").click()
    done = agent.said()
    assert done["status"] == "denied"
    page.goto(page.url.rsplit("/", 1)[0] + "/calls")
    assert HOSTILE in page.locator("#calls").text_content()
    assert page.locator("#calls img, #calls script").count() == 0
    assert page.title() != "pwned"


def test_the_calls_feed_is_live_and_a_grant_is_revoked_from_the_page(page, agent_process):
    base = page.url.rsplit("/", 1)[0]
    page.goto(base + "/calls")
    page.wait_for_selector("#live[data-state='live']")
    agent = agent_process({"path": "g.txt", "text": "grant"})
    approval_id = agent.said()["pending"]
    page.locator("#calls tr.status-pending").wait_for()  # arrives over server-sent events
    assert "support-42" in page.locator("#calls").text_content()
    page.goto(base + "/")
    page.locator(
        f"article.card[data-id='{approval_id}'] button[data-decision='allow-always']"
    ).click()
    assert agent.said()["status"] == "ok"
    page.goto(base + "/grants")
    row = page.locator("table.list tbody tr", has_text="write")
    assert "alice" in row.text_content()
    row.locator("button[data-revoke]").click()
    row.wait_for(state="detached")
    page.reload()
    assert "No grants." in page.locator("table.list tbody").text_content()
