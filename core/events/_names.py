"""The names of the events the core and the built-in plugins emit: one constant each, so a reader
that tests ``name == TOOL_INJECTED`` cannot drift from the writer by a typo."""

from __future__ import annotations

TOOL_PROPOSED = "tool.proposed"
HOOK_DECISION = "hook.decision"
HOOK_ERROR = "hook.error"
PARAMS_CONFLICT = "params.conflict"
PARAMS_FROZEN_IGNORED = "params.frozen_ignored"
APPROVAL_IGNORED = "approval.ignored"
TOOL_BLOCKED = "tool.blocked"
APPROVAL_REQUESTED = "approval.requested"
APPROVAL_DEFERRED = "approval.deferred"
APPROVAL_EDITED = "approval.edited"
APPROVAL_VOTE = "approval.vote"
"""One person's vote on a team's approval (issue #42), written before its ``approval.resolved``."""
APPROVAL_RESOLVED = "approval.resolved"
TOOL_STARTED = "tool.started"
TOOL_FINISHED = "tool.finished"
RESULT_TRIMMED = "result.trimmed"
LOOP_WARNING = "loop.warning"
LOOP_CRITICAL = "loop.critical"
TOOL_INJECTED = "tool.injected"
PLUGIN_UNLOCKED = "plugin.unlocked"
POLICY_DENIED = "policy.denied"
"""The policy plugin's own event (a rule that denied a call), beside ``tool.blocked``."""
RULES_MATCHED = "rules.matched"
"""The rules plugin's event: the rule (or ``opaque`` / ``unmatched``) that decided a call."""
SCAN_FINDING = "scan.finding"
"""The scanners plugin's event: one finding (detector, kind, where, offsets, digest)."""

CALL_ENDS = (TOOL_INJECTED, APPROVAL_DEFERRED)
"""A call's last event in one process: its result went back, or it paused for an approval (its
resume, maybe days later, goes on under the same call id)."""
