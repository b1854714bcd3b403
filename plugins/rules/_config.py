"""``[plugins.rules]`` and one ``[[rules]]`` entry: pydantic models with ``extra="forbid"``.

They define and document every key, but a policy in the plain shapes of a TOML file is read by
the hand check of ``_tables`` without them: they are built only for a table it passes on, to
read it or to word its error (docs/decisions/rules-hand-check.md).

A rule's conditions are one model (``Conditions``) that both the rule and its ``unless`` table
use, so a condition added later (``session``, ``from``) is one field here and one matcher in
``_match``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._defaults import DEFAULTS, DecisionName

Label = Annotated[str, Field(strict=True, min_length=1, max_length=128)]

Text = Annotated[str, Field(strict=True, min_length=1, max_length=4096)]
Word = Text | Annotated[list[Text], Field(min_length=1)]
"""One word of a command prefix: a glob (``*`` only), or a list of alternatives."""


class FromTable(BaseModel):
    """``from``: the labels, and optionally which params and which tokens count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: Annotated[list[Label], Field(min_length=1)]
    """A token counts when it came from a result carrying one of these labels."""
    params: Annotated[list[Label], Field(min_length=1)] | None = None
    """Only these params' values count (dotted names for nested ones); default every param."""
    only: Literal["hosts"] | None = None
    """``"hosts"``: only tokens that name a host count (where a message or a fetch goes)."""

    @model_validator(mode="before")
    @classmethod
    def _a_list_is_the_labels(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"labels": [value]}
        if isinstance(value, list):
            return {"labels": value}
        return value


def _listed(value: Any) -> Any:
    """A lone string where a list is expected is that one item (``hosts = "github.com"``)."""
    return [value] if isinstance(value, str) else value


class RulesSettings(BaseModel):
    """``[plugins.rules]``: what happens to shell commands no rule decides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unmatched: DecisionName = DEFAULTS.unmatched
    """The decision for a shell command that no rule matches (only for tools some rule
    covers): ``allow`` (default), ``ask`` or ``deny`` (an allow list of commands)."""
    opaque: DecisionName = DEFAULTS.opaque
    """The decision for a shell script the analysis cannot see through (``eval``, ``$CMD``,
    ``curl ... | sh``, a parse failure), and for a command where an unknown word (``$X``) could
    decide a rule: ``ask`` (default), ``deny`` or ``allow``."""
    protect_own_state: bool = True
    """While any rule exists, deny a call (any tool, any shell form) that writes, moves or
    deletes toolhooks' own state (its config, ``toolhooks.lock``, ``.toolhooks/``, the hook
    settings ``toolhooks hook install`` wrote) or reads its keys; writing a ``pyproject.toml``
    that holds the config asks (docs/decisions/own-state.md)."""


class Conditions(BaseModel):
    """The conditions of a rule (all that are given must hold) and of its ``unless`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: Annotated[list[Word], Field(min_length=1)] | None = None
    """An argv prefix: ``["git", "push"]``; a word may hold ``*`` or be a list of alternatives
    (``[["rm", "rmdir"]]``). A string is split on spaces. Options between the words are skipped."""
    flags: Annotated[list[Text], Field(min_length=1)] | None = None
    """Any of these options is present: ``-r`` (held by ``-rf``, ``-fr``, ``-r -f``),
    ``--force`` (held by ``--force=x`` and an unambiguous prefix such as ``--forc``), or a
    single-dash word option such as find's ``-delete`` (that word). Nothing after ``--``."""
    args: Annotated[list[Text], Field(min_length=1)] | None = None
    """Globs (``*``, ``?``, ``[...]``); one of the command's non-option arguments matches."""
    paths: Annotated[list[Text], Field(min_length=1)] | None = None
    """gitignore-style globs on every path the call touches (``**`` crosses ``/``, ``*`` does
    not; a pattern without ``/`` matches a name at any depth; ``~`` is the home folder; other
    relative patterns are relative to the project, the config's folder)."""
    hosts: Annotated[list[Text], Field(min_length=1)] | None = None
    """Globs on the hosts the call reaches (``*.example.com`` matches its subdomains)."""
    params: (
        Annotated[
            dict[Text, Text | Annotated[list[Text], Field(min_length=1)]], Field(min_length=1)
        ]
        | None
    ) = None
    """Param name (dotted for nested) -> glob or list of globs, matched on that param alone (a
    list param matches when an element does; a list on the way is each of its elements:
    ``to.iban`` is every recipient's iban)."""
    session: Annotated[list[Label], Field(min_length=1)] | None = None
    """Labels: holds when the session carries one of them (a labelled call ran before)."""
    from_: FromTable | None = Field(default=None, alias="from")
    """Labels (or a table: ``labels``, ``params``, ``only = "hosts"``): holds when a param value
    holds a token that came from an earlier result with one of these labels and that the user
    did not say (``Runtime.trust``)."""

    @field_validator("command", mode="before")
    @classmethod
    def _split_command(cls, value: Any) -> Any:
        return value.split() if isinstance(value, str) else value

    @field_validator("flags", mode="after")
    @classmethod
    def _options(cls, flags: list[str] | None) -> list[str] | None:
        for flag in flags or ():
            if not flag.startswith("-") or flag in ("-", "--"):
                raise ValueError(f"{flag!r} is not an option: write '-x' or '--name'")
            body = flag[1:]
            if not flag.startswith("--") and 1 < len(body) <= 3 and body.isalpha():
                # `-rf` would be the word -rf only, and `rm -r -f` would walk past it.
                letters = ", ".join(f"'-{c}'" for c in body)
                raise ValueError(
                    f"{flag!r} is a cluster of short options: list each one ({letters}); "
                    "'-r' is held by -rf, -fr and -r -f alike"
                )
        return flags

    @field_validator("flags", "args", "paths", "hosts", "session", mode="before")
    @classmethod
    def _one_is_a_list(cls, value: Any) -> Any:
        return _listed(value)

    def given(self) -> list[str]:
        """The names of the conditions this table gives, in field order."""
        return [
            field.alias or name
            for name, field in Conditions.model_fields.items()
            if getattr(self, name) is not None
        ]


class RuleConfig(Conditions):
    """One ``[[rules]]`` table."""

    id: Annotated[str, Field(strict=True, min_length=1, max_length=80, pattern=r"^[^\s]+$")]
    """Unique among the rules; block reasons and approvals name it."""
    tools: Annotated[list[Text], Field(min_length=1)] = Field(default_factory=lambda: ["*"])
    """Tool names, ``*`` patterns (a pattern selects side-effect tools too), ``group:<name>``
    (built-in or ``[tools.groups]``), ``tag:<name>`` (tools whose ToolSpec has the tag, as the
    policy fence reads it: ``tag:side_effect`` also takes ``exec``, ``write``, ...) and aliases
    (``bash`` is ``exec``); default every tool."""
    decision: DecisionName | None = None
    """``allow``, ``ask`` (an approval whose question is ``reason``) or ``deny``."""
    label: Label | None = None
    """The label a matching call gives its session and its result once it ran (``session``
    and ``from`` conditions of later calls read it). A rule has a decision, a label, or both."""
    reason: Annotated[str, Field(strict=True, min_length=1, max_length=400)] | None = None
    """What the model (deny) or the approver (ask) reads; the rule id and what matched are
    added."""
    unless: Conditions | None = None
    """The rule does not apply when all of these hold; for args, paths and hosts every item
    must match (and there must be one). Paths (hosts) the rule names too are read over those
    that made the rule hold, not over all of the call's."""
    match: list[Text | dict[str, Any]] = Field(default_factory=list)
    """Examples the rule must match, checked when the config loads: a string is an exec
    command, a table a call's params."""
    not_match: list[Text | dict[str, Any]] = Field(default_factory=list)
    """Examples the rule must not match, checked when the config loads."""

    @field_validator("tools", mode="before")
    @classmethod
    def _tools_list(cls, value: Any) -> Any:
        return _listed(value)

    @model_validator(mode="after")
    def _needs_a_decision(self) -> RuleConfig:
        if self.decision is None and self.label is None:
            raise ValueError("a rule needs a decision ('allow', 'ask' or 'deny'), a label, or both")
        return self
