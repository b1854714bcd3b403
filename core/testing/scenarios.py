"""The scenario list every framework adapter runs.

The same tool calls, plugins and human answers are driven through each framework's own agent loop,
with the framework's own scripted model, so "the LangChain adapter blocks with the reason" means the
same thing as "the PydanticAI adapter blocks with the reason". An adapter's test suite supplies a
:class:`Driver` and parametrizes over :data:`SCENARIOS`::

    @pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
    def test_scenario(scenario, tmp_path):
        check(scenario, MyFrameworkDriver(), workdir=tmp_path)

Each proposal is one model turn that asks for one tool call; after the last tool result the model
answers with plain text and the run ends. :func:`check` builds a fresh runtime for the scenario,
runs the driver, and asserts what the tools received, what the model saw, what a human was asked,
and that every call has exactly one ``tool.proposed`` and one ``tool.injected`` (across a pause
too).
"""

from __future__ import annotations

from ._scenario_check import check
from ._scenario_parts import (
    AskBeforeWrites,
    HideBranchDeletes,
    NoSystemWrites,
    RedactSecrets,
    WorkspacePaths,
    loop_detection_only,
    make_tools,
    result_budget_only,
)
from ._scenario_records import (
    AgentRun,
    Answer,
    Driver,
    Expect,
    Scenario,
    ToolMessage,
    approval_view,
)

_WRITE = {"name": "write_file", "params": {"path": "notes.txt", "content": "hello"}}
_WRITTEN = {"path": "/workspace/notes.txt", "content": "hello"}
_EDITED = {"path": "/workspace/draft.txt", "content": "hello"}

SCENARIOS: list[Scenario] = [
    Scenario(
        name="params rewrite",
        plugins=lambda: [WorkspacePaths()],
        proposals=(_WRITE,),
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars to /workspace/notes.txt",),
            errors=(False,),
        ),
    ),
    Scenario(
        name="block with reason",
        plugins=lambda: [NoSystemWrites()],
        proposals=({"name": "write_file", "params": {"path": "/etc/passwd", "content": "x"}},),
        expect=Expect(ran=(), seen=("writes under /etc are not allowed",), errors=(True,)),
    ),
    Scenario(
        name="hidden tool",
        plugins=lambda: [HideBranchDeletes()],
        proposals=({"name": "delete_branch", "params": {"name": "main"}},),
        expect=Expect(
            ran=(), seen=("delete_branch",), errors=(True,), hidden=frozenset({"delete_branch"})
        ),
    ),
    Scenario(
        name="approval answered inline",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "allow-once"},),
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="approval allowed across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "allow-once"},),
        pauses=True,
        expect=Expect(
            ran=(("write_file", _WRITTEN),),
            seen=("wrote 5 chars",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="approval denied across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "deny"},),
        pauses=True,
        expect=Expect(ran=(), seen=("Denied by user",), errors=(True,), asked=(_WRITTEN,)),
    ),
    Scenario(
        name="approval edited across the pause",
        plugins=lambda: [WorkspacePaths(), AskBeforeWrites()],
        proposals=(_WRITE,),
        answers=({"decision": "edit", "params": _EDITED},),
        pauses=True,
        expect=Expect(
            ran=(("write_file", _EDITED),),
            seen=("wrote 5 chars to /workspace/draft.txt",),
            errors=(False,),
            asked=(_WRITTEN,),
        ),
    ),
    Scenario(
        name="after-hook redaction",
        plugins=lambda: [RedactSecrets()],
        proposals=({"name": "read_secret", "params": {"name": "API_KEY"}},),
        expect=Expect(
            ran=(("read_secret", {"name": "API_KEY"}),),
            seen=("API_KEY=[REDACTED]",),
            errors=(False,),
            never_seen=("sk-live",),
        ),
    ),
    Scenario(
        name="result trimmed",
        plugins=result_budget_only,
        config=lambda workdir: {
            "plugins": {
                "result_budget": {
                    "tiers": [{"min_tokens": 0, "max_chars": 2_000}],
                    "floor": 1_000,
                    "artifact_dir": str(workdir / "artifacts"),
                }
            }
        },
        proposals=({"name": "dump_log", "params": {"lines": 400}},),
        expect=Expect(
            ran=(("dump_log", {"lines": 400}),),
            seen=("more characters truncated",),
            errors=(False,),
            never_seen=("step 0399",),
        ),
    ),
    Scenario(
        name="loop warning reaches the model",
        plugins=loop_detection_only,
        config=lambda _workdir: {
            "plugins": {
                "loop_detection": {"warning_threshold": 2, "critical_threshold": 4, "window": 10}
            }
        },
        proposals=({"name": "search", "params": {"query": "flaky test"}},) * 2,
        expect=Expect(
            ran=(("search", {"query": "flaky test"}),) * 2,
            seen=("no results for 'flaky test'", "WARNING"),
            errors=(False, False),
        ),
    ),
    Scenario(
        name="tool exception",
        proposals=({"name": "crash", "params": {"step": "deploy"}},),
        expect=Expect(
            ran=(("crash", {"step": "deploy"}),), seen=("disk full while deploy",), errors=(True,)
        ),
    ),
]


__all__ = [
    "SCENARIOS",
    "AgentRun",
    "Answer",
    "AskBeforeWrites",
    "Driver",
    "Expect",
    "HideBranchDeletes",
    "NoSystemWrites",
    "RedactSecrets",
    "Scenario",
    "ToolMessage",
    "WorkspacePaths",
    "approval_view",
    "check",
    "make_tools",
]
