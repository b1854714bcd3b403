"""The rules plugin: decides a call by what it does (its commands, paths, hosts and params)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolhooks import (
    AfterToolCallResult,
    ApprovalRequest,
    BeforeToolCallResult,
    ToolCall,
    ToolResult,
    emit,
    hookimpl,
)
from toolhooks.kit import LazyConfig
from toolhooks.stores import LabelStore

from ._calls import CallMemo
from ._engine import RuleSet, default_project, is_exec
from ._labelling import label_result, store_getter, uses_history, view_for
from ._load import load_rules
from ._own_state import OwnState, guard_for
from ._records import Hit, Ruling
from ._tables import DEFAULT_OPTIONS, RulesOptions, checked_options, options_of
from ._tools import tags_of

if TYPE_CHECKING:
    from ._config import RulesSettings

TITLE_LIMIT = 80
DESCRIPTION_LIMIT = 512


class RulesPlugin:
    """``[[rules]]`` on arguments: the first plugin after the policy fence.

    Loaded only when the config has a ``[[rules]]`` entry (or when registered explicitly), so a
    pipeline without rules pays nothing. A call whose tool no rule covers costs one dict lookup.
    """

    name = "rules"
    # DESIGN.md: right after the fence. loop_detection has the same priority; equal priorities
    # keep registration order and the built-ins register by name, so it runs just before rules.
    priority: ClassVar[int] = 9_000
    # Read only when a [plugins.rules] table is not in its plain shapes (its hand check, in
    # _tables, passed it on): the model then validates it and words the error.
    Config = LazyConfig["RulesSettings"](
        f"{__package__}._config", "RulesSettings", check=checked_options
    )

    def __init__(
        self,
        config: RulesOptions | RulesSettings | Mapping[str, Any] | None = None,
        *,
        rules: Sequence[Mapping[str, Any]] | None = None,
        project: str | None = None,
        home: str | None = None,
    ) -> None:
        """``rules``: the ``[[rules]]`` entries, for a plugin registered by hand (else they are
        read from the runtime's config). ``project`` (default: the config file's folder, else the
        working directory) anchors relative paths; ``home`` defaults to ``~``."""
        if config is None:
            config = DEFAULT_OPTIONS
        elif not isinstance(config, RulesOptions):
            checked = checked_options(config) if isinstance(config, Mapping) else None
            config = checked or options_of(self.Config.model_validate(config))
        self.config: RulesOptions = config
        self._given = None if rules is None else list(rules)
        self._project = project
        self._home = home
        self._key: tuple[Any, ...] | None = None
        self._lock = threading.Lock()
        self.rules: RuleSet | None = None
        self._store_of: Callable[[], LabelStore | None] = lambda: None
        self._history = False
        self._own: OwnState | None = None
        if rules is not None:
            self._compile(None, (), {})

    def attach_runtime(self, runtime: Any) -> None:
        """Compile the rules against the runtime's config (its file, its ``[tools.groups]``);
        idempotent, and a bad rule is a ConfigError raised here, when the runtime is built."""
        if hasattr(runtime, "label_store"):
            self._store_of = store_getter(runtime)
        config = getattr(runtime, "config", None)
        if config is None:
            return
        from toolhooks.plugins.policy import user_groups

        groups = user_groups(config.data)
        key = (id(config), tuple(sorted((k, tuple(v)) for k, v in groups.items())))
        with self._lock:
            if key == self._key:
                return
            raw = self._given if self._given is not None else config.data.get("rules", [])
            self._compile_raw(raw, config.source, tuple(config.prefix), groups)
            self._own = guard_for(
                self.config.protect_own_state, raw, config.source, config.data,
                self._project or default_project(config.source),
                self._home or os.path.expanduser("~"),
            )  # fmt: skip
            self._key = key

    def _compile(
        self, source: Any, prefix: tuple[str, ...], groups: dict[str, tuple[str, ...]]
    ) -> None:
        self._compile_raw(self._given, source, prefix, groups)

    def _compile_raw(
        self, raw: Any, source: Any, prefix: tuple[str, ...], groups: dict[str, tuple[str, ...]]
    ) -> None:
        from toolhooks.plugins.policy import BUILTIN_GROUPS

        self.rules = load_rules(
            raw,
            unmatched=self.config.unmatched,
            opaque=self.config.opaque,
            project=self._project or default_project(source),
            home=self._home or os.path.expanduser("~"),
            groups={**BUILTIN_GROUPS, **groups},
            source=source,
            prefix=prefix,
        )
        self._history = uses_history(self.rules)

    # -- the hook ----------------------------------------------------------------------------

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        rules = self.rules
        if rules is None:
            return None
        # This call's analysis and resolved paths, shared by the guard and the rules, dropped
        # with the call (the files may change before the next one).
        memo = CallMemo() if is_exec(call.name) else None
        own = self._own
        guarded = None if own is None else own.check(call.name, call.params, call.spec, memo)
        if guarded is not None and guarded.decision == "deny":
            return guarded.result()
        # the guard's ask (a folder holding its state filled, its pyproject.toml written) still
        # meets the rules: a rule's deny is stricter (curl URL | tar x)
        chosen = rules.for_tool(call.name, tags_of(call.spec))
        if not chosen.rules:
            return None if guarded is None else guarded.result()
        view = view_for(self._store_of, call) if chosen.has_history else None
        ruling = rules.decide(
            call.name, call.params, call.spec, rules=chosen, history=view, memo=memo
        )
        hit = ruling.hit
        if guarded is not None and (hit is None or ruling.decision != "deny"):
            return guarded.result()
        if hit is None or ruling.decision in (None, "allow"):
            return None
        emit(
            "rules.matched",
            rule=hit.rule,
            decision=hit.decision,
            kind=hit.kind,
            matched=hit.matched,
            labels_used=[] if view is None else view.used,
        )
        if hit.decision == "deny":
            return BeforeToolCallResult(block=True, block_reason=block_reason(hit))
        return BeforeToolCallResult(require_approval=approval_request(hit))

    @hookimpl(priority=-20_000)
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> AfterToolCallResult | None:
        """Last of all: keep the labels of a call that ran (labelling rules, other plugins'
        ``labels``) for the session, with the tokens of the text the model reads."""
        rules = self.rules
        if rules is None or not self._history:
            return None
        return label_result(rules, self._store_of, call, result)

    # -- explain -------------------------------------------------------------------------------

    def explain_call(self, call: ToolCall | Mapping[str, Any]) -> dict[str, Any]:
        """What the rules see in a call and what each one made of it (``toolhooks explain
        --call``): the parsed commands, paths and hosts, each rule's verdict per command, and the
        decision."""
        if not isinstance(call, ToolCall):
            call = ToolCall.from_mapping(call)
        rules = self.rules
        if rules is None:
            return {"rules": 0, "decision": None}
        ruling = rules.explain(call.name, call.params, call.spec)
        covering = rules.for_tool(call.name, tags_of(call.spec)).rules
        return explanation(rules, call.name, covering, ruling)


def block_reason(hit: Hit) -> str:
    """What the model reads: the rule id, its reason, and the part of the call that matched."""
    if hit.kind == "opaque":
        return f'Blocked by rules (opaque = "deny"): {hit.matched}'
    if hit.kind == "unmatched":
        return f'Blocked by rules (unmatched = "deny"): {hit.matched}'
    said = f": {hit.reason}" if hit.reason else ""
    if hit.kind == "uncertain":
        return f"Blocked by rule '{hit.rule}'{said} ({hit.matched}; opaque = \"deny\")"
    return f"Blocked by rule '{hit.rule}'{said} ({hit.matched})"


def approval_request(hit: Hit) -> ApprovalRequest:
    """The question an approver reads: the rule's reason, the rule id and what matched."""
    if hit.kind == "opaque":
        title = "Run a command toolhooks cannot see through?"
        description = f"{hit.matched}. Command: {hit.subject}"
    elif hit.kind == "unmatched":
        title = "Run a command no rule allows?"
        description = hit.matched
    else:
        title = hit.reason or f"Rule '{hit.rule}' asks for approval"
        description = f"Rule '{hit.rule}': {hit.matched}"
        if hit.kind == "uncertain":
            title = f"Rule '{hit.rule}' cannot tell: {hit.reason or 'approve?'}"
    # No allow-always: a grant is kept per (plugin, tool, sender), so one "always" for this
    # question would answer every later rule's question about the same tool, opaque scripts too.
    return ApprovalRequest(
        title=_fit(title, TITLE_LIMIT),
        description=_fit(description, DESCRIPTION_LIMIT),
        allowed_decisions=("allow-once", "deny"),
    )


def _fit(text: str, limit: int) -> str:
    text = " ".join(text.split()) or "approve?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explanation(rules: RuleSet, tool: str, chosen: Sequence[Any], ruling: Ruling) -> dict[str, Any]:
    facts = ruling.facts
    commands = []
    paths: list[str] = []
    hosts: list[str] = []
    if facts is not None:
        for subject in facts.subjects:
            command = subject.command
            if command is not None:
                commands.append(
                    {
                        "text": command.text,
                        "program": command.program,
                        "argv": [w.text if w.text is not None else None for w in command.argv],
                        "via": list(command.via),
                        "cwd": command.cwd,
                    }
                )
            paths += subject.paths
            hosts += subject.hosts
    return {
        "tool": tool,
        "rules": len(rules.rules),
        "covering": [rule.id for rule in chosen],
        "opaque": None if facts is None else facts.opaque,
        "commands": commands,
        "paths": list(dict.fromkeys(paths)),
        "hosts": list(dict.fromkeys(hosts)),
        "verdicts": [
            {"rule": t.rule, "subject": t.subject, "verdict": t.verdict, "detail": t.detail}
            for t in ruling.traces
        ],
        "decision": ruling.decision,
        "by": None
        if ruling.hit is None
        else {
            "rule": ruling.hit.rule,
            "kind": ruling.hit.kind,
            "matched": ruling.hit.matched,
        },
    }
