"""Labels once a call ran: the labelling rules that match it, plus the labels other plugins'
after hooks gave its result, kept for the session with the result's tokens (``from``).

The rules plugin's after hook runs last (after the result budget), so the tokens kept are those
of the text the model reads, and every other handler's labels are in ``result.labels``. A label
set by a call counts only for later calls: the labelling rules' own ``session`` / ``from``
conditions are read before this call's labels are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolhooks import AfterToolCallResult, ToolCall, ToolhooksError, ToolResult, emit
from toolhooks.stores import LabelStore

from ._engine import RuleSet
from ._history import HistoryView
from ._tools import tags_of

RAN = frozenset({"ok", "error"})


def session_key(call: ToolCall) -> str:
    """The session a call's history lives in; calls without a session id share one."""
    return call.session_id or ""


def label_result(
    rules: RuleSet, store_of: Callable[[], LabelStore | None], call: ToolCall, result: ToolResult
) -> AfterToolCallResult | None:
    """Keep the labels of a call that ran; a store that cannot be written withholds the result
    (its tokens would be followed by no ``from`` rule: fail closed)."""
    if result.status not in RAN:
        return None
    picked = rules.for_tool(call.name, tags_of(call.spec))
    given: dict[str, list[str]] = {}
    if picked.labelling:
        view = HistoryView(store=store_of, session=session_key(call), params=call.params)
        for rule in picked.labelling:
            assert rule.label is not None
            # Unknown (an opaque script, an unreadable store) labels: fail closed.
            if rules.holds(rule, call.name, call.params, spec=call.spec, history=view) is not False:
                given.setdefault(rule.label, []).append(f"rule {rule.id}")
    for label in sorted(result.labels):
        given.setdefault(label, []).append("after_tool_call")
    paged = result.content.startswith("[artifact sha256:")  # read_artifact_tool's page
    if not given and not paged:
        return None
    # Imported here: a process whose rules label nothing never loads the tokeniser.
    from toolhooks.plugins.result_budget import artifact_labels, keep_artifact_labels
    from toolhooks.stores import result_tokens

    store = store_of()
    try:
        if store is None:
            raise ToolhooksError("the runtime has no label store")
        if paged:  # a page of a trimmed result: labelled as that result was
            found = artifact_labels(store, result.content)
            if found is not None:
                ref, carried = found
                for label in sorted(carried):
                    given.setdefault(label, []).append(f"artifact {ref}")
            if not given:
                return None
        tokens = result_tokens(result.content)
        store.record(session_key(call), list(given), tokens)
        keep_artifact_labels(store, result.content, list(given))  # a trimmed result's artifact
    except (ToolhooksError, ValueError) as error:
        text = f"Tool result withheld: its labels could not be kept ({error})"
        emit("rules.labels_failed", labels=sorted(given), error=str(error))
        return AfterToolCallResult(content=text, value=None)
    emit("rules.labelled", labels=given, tokens=len(tokens))
    own = tuple(
        label for label, by in given.items() if any(b[:5] in ("rule ", "artif") for b in by)
    )
    return AfterToolCallResult(labels=own) if own else None


def uses_history(rules: RuleSet | None) -> bool:
    """Whether any rule labels or reads labels (else the after hook has nothing to do)."""
    if rules is None:
        return False
    return any(
        r.label is not None or r.history is not None or r.unless_history is not None
        for r in rules.rules
    )


def view_for(store_of: Callable[[], LabelStore | None], call: ToolCall) -> HistoryView:
    return HistoryView(store=store_of, session=session_key(call), params=call.params)


def store_getter(runtime: Any) -> Callable[[], LabelStore | None]:
    """The runtime's label store, read when first needed (a weak reference: the plugin must
    not keep its runtime alive)."""
    import weakref

    ref = weakref.ref(runtime)

    def store() -> LabelStore | None:
        owner = ref()
        return None if owner is None else getattr(owner, "label_store", None)

    return store
