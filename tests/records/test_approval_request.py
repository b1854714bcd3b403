"""``ApprovalRequest`` is a plain record with the model's interface: the same names and aliases,
the same rules and clamps, frozen, equal by value, and it survives a pickle and a copy."""

from __future__ import annotations

import copy
import math
import pickle

import pytest
from toolhooks import ApprovalRequest
from toolhooks.records._approval_request import ApprovalRequestError


def test_names_aliases_and_defaults():
    request = ApprovalRequest(title="t", description="d")
    assert request.model_dump() == {
        "title": "t",
        "description": "d",
        "severity": "warning",
        "timeout_s": 120.0,
        "allowed_decisions": ("allow-once", "allow-always", "deny"),
        "timeout_behavior": "deny",
    }
    aliased = ApprovalRequest.model_validate(
        {"title": "t", "description": "d", "timeoutS": 5, "allowedDecisions": ["deny", "edit"]}
    )
    assert (aliased.timeout_s, aliased.allowed_decisions) == (5.0, ("deny", "edit"))
    assert ApprovalRequest(title="t", description="d", timeoutMs=2500).timeout_s == 2.5
    assert ApprovalRequest(title="t", description="d", timeout_s=math.inf).timeout_s == 600.0


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"description": "d"}, "title", "Field required"),
        ({"title": "", "description": "d"}, "title", "String should have at least 1 character"),
        ({"title": "t" * 81, "description": "d"}, "title", "String should have at most 80"),
        ({"title": 5, "description": "d"}, "title", "Input should be a valid string"),
        ({"title": "t", "description": "d", "severity": "loud"}, "severity", "'critical'"),
        ({"title": "t", "description": "d", "timeout_s": "9"}, "timeout_s", "valid number"),
        ({"title": "t", "description": "d", "timeout_s": True}, "timeout_s", "valid number"),
        ({"title": "t", "description": "d", "timeout_s": math.nan}, "timeout_s", "a number"),
        (
            {"title": "t", "description": "d", "allowed_decisions": []},
            "allowed_decisions",
            "1 item",
        ),
        (
            {"title": "t", "description": "d", "allowed_decisions": "deny"},
            "allowed_decisions",
            "tuple",
        ),
        (
            {"title": "t", "description": "d", "allowed_decisions": ["no"]},
            "allowed_decisions.0",
            "'defer'",
        ),
        (
            {"title": "t", "description": "d", "timeout_behavior": "allow"},
            "timeout_behavior",
            "'deny'",
        ),
        (
            {"title": "t", "description": "d", "auto": True},
            "auto",
            "Extra inputs are not permitted",
        ),
        ({"title": "t", "description": "d", "timeoutMs": 1, "timeout_s": 1}, "", "not both"),
    ],
)
def test_a_bad_field_is_a_value_error_that_names_it(fields, field, message):
    with pytest.raises(ValueError) as raised:
        ApprovalRequest.model_validate(fields)
    assert isinstance(raised.value, ApprovalRequestError)
    assert raised.value.field == field and message in raised.value.message


def test_frozen_equal_by_value_hashable_and_it_survives_pickle_and_copy():
    request = ApprovalRequest(title="t", description="d", severity="critical")
    with pytest.raises(ValueError, match="frozen"):
        request.title = "other"  # type: ignore[misc]
    same = ApprovalRequest(title="t", description="d", severity="critical")
    assert request == same and hash(request) == hash(same) and request != "t"
    assert pickle.loads(pickle.dumps(request)) == request
    assert copy.deepcopy(request) == request
    assert ApprovalRequest.model_validate(request) is request
    assert repr(request).startswith("ApprovalRequest(title='t', description='d', severity=")


def test_model_construct_checks_nothing_and_model_validate_of_its_dump_checks_everything():
    made = ApprovalRequest.model_construct(title="", description="d", allowed_decisions=5)
    assert made.title == "" and made.allowed_decisions == 5 and made.timeout_s == 120.0
    with pytest.raises(ApprovalRequestError):
        ApprovalRequest.model_validate(made.model_dump())
