"""The scanners plugin: runs the detectors on what a call sends, what it returns and how tools
describe themselves, and labels, redacts, asks or blocks on a finding."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from toolhooks import (
    AfterToolCallResult,
    ApprovalRequest,
    BeforeToolCallResult,
    ToolCall,
    ToolResult,
    ToolSpec,
    emit,
    hookimpl,
)
from toolhooks.kit import (
    ConfigOnRead,
    Finding,
    LazyConfig,
    LazyLogger,
    find_hidden_text,
    find_instructions,
    find_pii,
    find_secrets,
    name_patterns,
    redact,
    render_content,
)

from ._strings import rebuilt, strings

if TYPE_CHECKING:
    from collections.abc import Container

    from ._config import DetectorConfig, ScannersConfig

DETECTORS: dict[str, Callable[[str], list[Finding]]] = {
    "hidden_text": find_hidden_text,
    "secrets": find_secrets,
    "pii": find_pii,
    "instructions": find_instructions,
}
"""Each detector by its key in ``[plugins.scanners]``."""

DESCRIPTIONS_SEEN = 4_096
"""Tool descriptions whose verdict is remembered (``tool_visible`` runs for every listing)."""

log = LazyLogger("toolhooks.plugins.scanners")


@dataclass(frozen=True, slots=True, kw_only=True)
class Scanner:
    """One configured detector."""

    name: str
    detect: Callable[[str], list[Finding]]
    on: frozenset[str]
    action: str
    label: str
    tools: Container[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Seen:
    """What one scanner found in one place of a call."""

    scanner: Scanner
    where: str
    findings: tuple[Finding, ...]


class ScannersPlugin:
    """``[plugins.scanners.<detector>]``: hidden text, secrets, PII and instructions addressed
    to the model, found in results, params and tool descriptions (PLUGINS.md, "Scanners")."""

    name = "scanners"
    # Before the result budget (-10_000) and the rules' labelling (-20_000) in after_tool_call:
    # the budget's artifact holds the redacted text, and the rules keep the labels given here.
    priority: ClassVar[int] = 5_000
    Config = LazyConfig["ScannersConfig"](f"{__package__}._config", "ScannersConfig")
    if TYPE_CHECKING:
        config: ScannersConfig
    else:
        config = ConfigOnRead()

    def __init__(self, config: ScannersConfig | Mapping[str, Any] | None = None) -> None:
        if config is not None and not isinstance(config, self.Config):
            config = self.Config.model_validate(config)
        self._given = config
        self._scanners: tuple[Scanner, ...] = ()
        self._verdicts: dict[str, bool] = {}
        if config is not None:
            self.config = config
            self._scanners = _scanners(config, {})

    def attach_runtime(self, runtime: Any) -> None:
        """Read ``[tools.groups]`` for the ``tools`` lists (``group:<name>``)."""
        config = getattr(runtime, "config", None)
        if config is None or self._given is None:
            return
        from toolhooks.plugins.policy import user_groups

        self._scanners = _scanners(self._given, user_groups(config.data))

    def _for(self, where: str, tool: str) -> list[Scanner]:
        return [s for s in self._scanners if where in s.on and tool in s.tools]

    # -- params ---------------------------------------------------------------------------------

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> BeforeToolCallResult | None:
        """What is about to leave: a finding in a string param redacts, asks or blocks."""
        chosen = [s for s in self._for("params", call.name) if s.action != "label"]
        if not chosen:
            return None
        seen = _scan_value(chosen, call.params, "params")
        if not seen:
            return None
        _report(seen, call.name)
        strictest = _strictest(seen)
        if strictest == "block":
            return BeforeToolCallResult(block=True, block_reason=_reason("Blocked", seen))
        if strictest == "ask":
            return BeforeToolCallResult(require_approval=_question(seen))
        return BeforeToolCallResult(params=rebuilt(call.params, _by_path(seen), "params"))

    # -- results --------------------------------------------------------------------------------

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: ToolResult) -> AfterToolCallResult | None:
        """What the model is about to read: a finding labels the call; redact, ask and block
        act on the text. A finding in the params of a ``label`` scanner labels it too."""
        on_results = self._for("results", call.name)
        on_params = [s for s in self._for("params", call.name) if s.action == "label"]
        if not on_results and not on_params:
            return None
        seen = _scan_value(on_params, call.params, "params") if on_params else []
        found = _scan_result(on_results, result) if on_results else []
        seen += found
        if not seen:
            return None
        _report(seen, call.name)
        labels = tuple(sorted({s.scanner.label for s in seen}))
        strictest = _strictest(found)
        if strictest in ("block", "ask"):
            # There is no asking once a call ran: the model does not read it (fail closed).
            text = _reason("Tool result withheld", found, asked=strictest == "ask")
            return AfterToolCallResult(content=text, value=None, labels=labels)
        if strictest == "redact":
            return _redacted(found, result, labels)
        return AfterToolCallResult(labels=labels)

    # -- descriptions ---------------------------------------------------------------------------

    @hookimpl
    def tool_visible(
        self, tool: ToolSpec, sender: Any, agent_id: str | None, origin: str
    ) -> bool | None:
        """A tool whose description (or parameter schema) holds a finding is hidden, with a
        warning, unless the scanner's action is ``label``."""
        chosen = self._for("descriptions", tool.name)
        if not chosen:
            return None
        key = _description_key(tool)
        shown = self._verdicts.get(key)
        if shown is None:
            shown = self._judge(chosen, tool)
            if len(self._verdicts) >= DESCRIPTIONS_SEEN:
                self._verdicts.clear()
            self._verdicts[key] = shown
        return None if shown else False

    def _judge(self, chosen: list[Scanner], tool: ToolSpec) -> bool:
        seen = _scan_value(chosen, {"description": tool.description}, "tool")
        seen += _scan_value(chosen, tool.parameters, "tool.parameters")
        if not seen:
            return True
        _report(seen, tool.name)
        hiding = [s for s in seen if s.scanner.action != "label"]
        for item in seen:
            kinds = ", ".join(sorted({f.kind for f in item.findings}))
            verb = "hidden" if item in hiding else "shown (action = label)"
            log.warning(
                "scanners: tool %r %s: %s found %s in %s",
                tool.name, verb, item.scanner.name, kinds, item.where,
            )  # fmt: skip
        return not hiding


# -- scanning --------------------------------------------------------------------------------------


def _scan_value(chosen: Sequence[Scanner], value: Any, root: str) -> list[Seen]:
    seen: list[Seen] = []
    for path, text in strings(value, root):
        for scanner in chosen:
            findings = scanner.detect(text)
            if findings:
                seen.append(Seen(scanner=scanner, where=path, findings=tuple(findings)))
    return seen


def _scan_result(chosen: Sequence[Scanner], result: ToolResult) -> list[Seen]:
    """Each decoded string of a structured result, then the text the model reads (what the
    strings already showed is not reported twice)."""
    value = result.value
    seen = [] if isinstance(value, str) else _scan_value(chosen, value, "result.value")
    known = {(s.scanner.name, f.digest) for s in seen for f in s.findings}
    for scanner in chosen:
        new = tuple(
            f for f in scanner.detect(result.content) if (scanner.name, f.digest) not in known
        )
        if new:
            seen.append(Seen(scanner=scanner, where="result.content", findings=new))
    return seen


def _report(seen: list[Seen], tool: str) -> None:
    for item in seen:
        for f in item.findings:
            emit(
                "scan.finding",
                detector=f.detector,
                kind=f.kind,
                where=item.where,
                start=f.start,
                end=f.end,
                digest=f.digest,
                action=item.scanner.action,
                label=item.scanner.label,
            )


_ORDER = {"label": 0, "redact": 1, "ask": 2, "block": 3}


def _strictest(seen: list[Seen]) -> str | None:
    if not seen:
        return None
    return max((s.scanner.action for s in seen), key=_ORDER.__getitem__)


def _summary(seen: list[Seen]) -> str:
    parts = sorted({f"{s.scanner.name}: {f.kind}" for s in seen for f in s.findings})
    return "; ".join(parts[:8]) + ("; ..." if len(parts) > 8 else "")


def _reason(what: str, seen: list[Seen], *, asked: bool = False) -> str:
    places = sorted({s.where for s in seen})
    why = " (a result cannot be approved after the call ran)" if asked else ""
    return f"{what} by scanners: {_summary(seen)} in {', '.join(places[:4])}{why}"


def _question(seen: list[Seen]) -> ApprovalRequest:
    title = f"Send a call holding {_summary(seen)}?"
    return ApprovalRequest(
        title=title if len(title) <= 80 else title[:79] + "…",
        description=_reason("Found", seen)[:512],
        allowed_decisions=("allow-once", "deny"),
    )


def _by_path(seen: list[Seen]) -> Callable[[str, str], str]:
    """A replacement for each string: its redacting scanners' findings replaced."""
    chosen: dict[str, list[Finding]] = {}
    for item in seen:
        if item.scanner.action == "redact":
            chosen.setdefault(item.where, []).extend(item.findings)

    def change(path: str, text: str) -> str:
        found = chosen.get(path)
        return redact(text, found) if found else text

    return change


def _redacted(
    found: list[Seen], result: ToolResult, labels: tuple[str, ...]
) -> AfterToolCallResult:
    """The result with every redacting scanner's findings replaced, in its value's strings and
    in the text the model reads (read again: a finding's offsets are those of the text it was
    found in)."""
    redacting = list(
        {s.scanner.name: s.scanner for s in found if s.scanner.action == "redact"}.values()
    )
    value, content = result.value, result.content
    if not isinstance(value, str) and value is not None:
        changed = rebuilt(value, _by_path(found), "result.value")
        if content == render_content(value):
            content = render_content(changed)  # the value's own rendering: render it again
        value = changed
    content = _redact_all(redacting, content)
    if isinstance(value, str):
        value = _redact_all(redacting, value)
    return AfterToolCallResult(content=content, value=value, labels=labels)


def _redact_all(scanners: list[Scanner], text: str) -> str:
    return redact(text, [f for scanner in scanners for f in scanner.detect(text)])


def _description_key(tool: ToolSpec) -> str:
    text = f"{tool.name}\0{tool.description}\0{render_content(dict(tool.parameters))}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# -- config -------------------------------------------------------------------------------------


def _scanners(config: ScannersConfig, groups: Mapping[str, Sequence[str]]) -> tuple[Scanner, ...]:
    from toolhooks.plugins.policy import BUILTIN_GROUPS

    known = {**BUILTIN_GROUPS, **groups}
    out: list[Scanner] = []
    for name, detect in DETECTORS.items():
        table: DetectorConfig | None = getattr(config, name)
        if table is None:
            continue
        out.append(
            Scanner(
                name=name,
                detect=detect,
                on=frozenset(table.on),
                action=table.action,
                label=table.label or name,
                tools=name_patterns(_expand(table.tools, known, set())),
            )
        )
    return tuple(out)


def _expand(
    entries: Sequence[str], groups: Mapping[str, Sequence[str]], seen: set[str]
) -> list[str]:
    """Tool names and patterns, ``group:<name>`` replaced by its members (an unknown group is
    a ConfigError: a list that silently covers nothing would scan nothing)."""
    from toolhooks import ConfigError

    out: list[str] = []
    for entry in entries:
        if not entry.startswith("group:"):
            out.append(entry)
            continue
        if entry in seen:
            continue
        if entry not in groups:
            raise ConfigError(
                f"[plugins.scanners] tools: unknown group {entry!r} (add it to [tools.groups])",
                key="plugins.scanners.tools",
            )
        seen.add(entry)
        out.extend(_expand(list(groups[entry]), groups, seen))
    return out
