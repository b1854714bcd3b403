"""Fuzz the JSON API from its own OpenAPI document (schemathesis): no input makes it answer 500.

Each operation gets cases generated from the document, signed in with a token and the CSRF token
(so the cases reach the handlers, not just the token check), against a store holding approvals
in every state. The server-sent events stream is not in the document and is not fuzzed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .test_approvals_api import HOSTILE, pause

EXAMPLES = 40


@pytest.fixture
def seeded(agent, api):
    rt = agent(title=HOSTILE)
    decided = pause(rt, "a.txt")
    pause(rt, "b.txt")
    api().decide(decided.pending.id, "allow-always")
    rt.resume(decided.pending.id)
    return api()


def test_no_generated_request_gets_a_500(seeded):
    import schemathesis

    document = seeded.get("/api/openapi.json").json()
    schema = schemathesis.openapi.from_dict(document)
    headers = {**seeded.auth, "x-csrf-token": seeded.csrf}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {(op.method.upper(), op.path) for op in operations} >= {
        ("GET", "/api/approvals"),
        ("POST", "/api/approvals/{key}/decision"),
        ("POST", "/api/grants/{grant_id}/revoke"),
        ("GET", "/api/calls"),
    }
    failures: list[str] = []
    statuses: dict[str, set[int]] = {}
    for operation in operations:
        _fuzz(operation, seeded, headers, statuses, failures)
    assert failures == []
    # The cases got past the token and CSRF checks: every operation answered something else too.
    assert all(found - {401, 403} for found in statuses.values()), statuses
    assert 200 in statuses["GET /api/approvals"] and 200 in statuses["GET /api/calls"]


def _fuzz(operation, seeded, headers, statuses, failures) -> None:
    """Send EXAMPLES generated cases of one operation; record statuses and any 5xx."""
    seen = statuses.setdefault(f"{operation.method.upper()} {operation.path}", set())

    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy())
    def exercise(case) -> None:
        sent = case.as_transport_kwargs(base_url="http://127.0.0.1")
        answer = seeded.client.request(
            sent["method"],
            sent["url"],
            params=sent.get("params"),
            json=sent.get("json"),
            headers={**(sent.get("headers") or {}), **headers},
        )
        seen.add(answer.status_code)
        if answer.status_code >= 500:
            failures.append(f"{case.method} {sent['url']} -> {answer.status_code}")

    exercise()
