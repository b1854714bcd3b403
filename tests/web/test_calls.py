"""The calls feed: summaries from the real event log, filters, one call's timeline, and the
pages that show them."""

from __future__ import annotations

from .test_approvals_api import HOSTILE, pause


def _run(rt, path, session=None):
    call = {"name": "write", "params": {"path": path, "text": "t"}}
    if session:
        call["session_id"] = session
    return rt.call(call)


def test_the_feed_lists_calls_newest_first_with_status_and_decision(agent, api):
    rt = agent()
    paused = pause(rt, "a.txt")
    blocked = _run(rt, "/forbidden/x")
    api("bob").decide(paused.pending.id, "allow-once")
    rt.resume(paused.pending.id)
    rt.close()  # flushes the event log
    calls = api().get("/api/calls").json()
    assert [c["call_id"] for c in calls] == [blocked.call_id, paused.call_id]
    assert calls[0]["status"] == "blocked" and "off limits" in calls[0]["reason"]
    done = calls[1]
    assert (done["status"], done["decision"], done["decided_by"]) == ("ok", "allow-once", "bob")
    assert done["approval_ids"] == [paused.pending.id] and done["tool"] == "write"


def test_filters_by_session_trace_tool_and_status(agent, api):
    rt = agent()
    one = _run(rt, "/forbidden/1", session="s-one")
    two = _run(rt, "/forbidden/2", session="s-two")
    waiting = pause(rt, "w.txt")
    rt.close()
    ids = lambda **query: [c["call_id"] for c in api().get("/api/calls", params=query).json()]  # noqa: E731
    assert ids(session="s-one") == [one.call_id]
    assert ids(trace=two.trace_id) == [two.call_id]
    assert ids(status="pending") == [waiting.call_id]
    assert ids(status="blocked") == [two.call_id, one.call_id]
    assert ids(tool="write", limit=1) == [waiting.call_id]
    assert ids(tool="nothing") == []
    assert api().get("/api/calls", params={"limit": 0}).status_code == 422


def test_one_calls_timeline_is_its_events_in_order(agent, api, client):
    rt = agent()
    paused = pause(rt)
    api().decide(paused.pending.id, "deny", reason="no")
    rt.resume(paused.pending.id)
    rt.close()
    detail = api().get(f"/api/calls/{paused.call_id}").json()
    names = [e["event"] for e in detail["events"]]
    assert names[0] == "tool.proposed" and names[-1] == "tool.injected"
    assert "approval.deferred" in names and "approval.resolved" in names
    assert names.count("tool.injected") == 1
    assert detail["call"]["status"] == "denied"
    assert api().get("/api/calls/call_unknown").status_code == 404
    page = api().get(f"/calls/{paused.call_id}")
    assert page.status_code == 200 and "approval.deferred" in page.text


def test_pages_escape_what_tools_and_hooks_said(agent, api):
    rt = agent(title=HOSTILE, description=HOSTILE)
    paused = pause(rt, path=HOSTILE, text=HOSTILE)
    waiting = api().get("/")
    assert waiting.status_code == 200
    assert "<script>" not in waiting.text.split("</head>", 1)[1].replace(
        '<script src="/static/desk.js" defer></script>', ""
    )
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in waiting.text
    assert "\x1b" not in waiting.text and "\u202e" not in waiting.text
    api().decide(paused.pending.id, "deny", reason=HOSTILE)
    rt.resume(paused.pending.id)
    rt.close()
    for path in ("/history", "/calls", f"/calls/{paused.call_id}", "/fragments/calls"):
        page = api().get(path)
        assert page.status_code == 200, path
        assert '<script>alert("x")' not in page.text, path
        assert "\x1b" not in page.text and "\u202e" not in page.text, path


def test_a_browser_following_a_dead_link_gets_a_page_saying_so(client):
    from .conftest import SECRETS

    client.post("/login", data={"token": SECRETS["alice"], "next": "/"})
    missing = client.get("/calls/call_<b>gone")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")
    assert "no call &#39;call_&lt;b&gt;gone&#39;" in missing.text
