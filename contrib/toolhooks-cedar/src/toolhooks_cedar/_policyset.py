"""The policies as loaded: parsed, validated against the schema, their examples checked, the
entities read; immutable, so a reload swaps one reference and a call in flight keeps its set."""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from toolhooks import ConfigError

from ._request import Who, principal_entity
from ._schema import build_schema, named_actions
from ._source import Policy, expand, parse_file, read_text

ENTITY_CACHE: Final = 512
"""Principals whose entity set is kept built (one per distinct sender)."""
SLICE_CACHE: Final = 1024
"""Tool names whose slice of the policy set is kept (calls may name any tool)."""
CONTEXT_PARTS: Final = ("input", "session", "from", "now", "exec")
_WHOLE_CONTEXT: Final = re.compile(r"\bcontext\b(?!\s*(?:\.|\[|has\b))")
"""``context`` not followed by an attribute (``.x``, ``["x"]``) or ``has``: the record itself."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Slice:
    """The policies that can apply to one action, and what of the context they can read.

    Cedar's cost is mostly turning the request's context into Cedar values (about 80 % of an
    evaluation of a small set, the ``exec`` and ``input`` records the most): a part of the
    context no policy of the slice names cannot change the answer, so it is not sent, and a
    policy whose scope names other actions is not in the slice. The answer is the one the
    whole set gives on the whole request (the property test checks it on 10,000 calls).
    """

    handle: Any
    by_id: Mapping[str, Policy]
    """Cedar's ids in ``handle`` (``policy<N>`` of the slice) -> the policies of the set."""
    parts: frozenset[str]
    """The context's top-level keys some policy of the slice names."""
    reads_history: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Files:
    """What a policy set was read from, with each file's (mtime, size) to notice a change."""

    folder: Path
    policies: tuple[str, ...]
    entities: str | None
    schema: str
    stamps: tuple[tuple[str, int, int], ...] = ()

    def current_stamps(self) -> tuple[tuple[str, int, int], ...]:
        """The stamps of the files the globs match now (a ConfigError when one matches none)."""
        paths = expand(list(self.policies), self.folder)
        extra = [self.folder / p for p in (self.entities, self.schema_path) if p]
        return tuple(_stamp(path) for path in [*paths, *extra])

    @property
    def schema_path(self) -> str | None:
        return None if self.schema in ("auto", "none") else self.schema


def _stamp(path: Path) -> tuple[str, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), -1, -1)
    return (str(path), info.st_mtime_ns, info.st_size)


@dataclass(kw_only=True)
class PolicySetData:
    """One loaded policy set (treated as immutable once built, but for its entity cache)."""

    policies: tuple[Policy, ...]
    by_id: dict[str, Policy]
    text: str
    handle: Any
    """The cedarpy ``PolicySet`` of every policy."""
    permits: Any
    """The cedarpy ``PolicySet`` of the permits alone (``default = "deny"`` with an ask)."""
    users: dict[str, dict[str, Any]]
    others: list[dict[str, Any]]
    schema: dict[str, Any] | None
    schema_text: str | None
    tools: frozenset[str]
    tool_params: dict[str, Any]
    """Each known tool's params JSON Schema (examples are typed as its calls are)."""
    files: Files
    reads_history: bool
    scopes: tuple[frozenset[str] | None, ...] = ()
    """Per policy, the actions its scope names (None: it may apply to any action)."""
    _entities: OrderedDict[Who, Any] = field(default_factory=OrderedDict)
    _slices: dict[str, Slice] = field(default_factory=dict)
    _shared: dict[tuple[int, ...], Slice] = field(default_factory=dict)

    def slice_for(self, action: str) -> Slice:
        """The policies that can apply to calls of ``action`` (built once per action)."""
        found = self._slices.get(action)
        if found is not None:
            return found
        picked = tuple(
            index for index, scope in enumerate(self.scopes) if scope is None or action in scope
        )
        found = self._shared.get(picked)
        if found is None:
            found = self._shared[picked] = self._slice(picked)
        if len(self._slices) >= SLICE_CACHE:
            self._slices.clear()
        self._slices[action] = found
        return found

    def _slice(self, picked: tuple[int, ...]) -> Slice:
        policies = [self.policies[index] for index in picked]
        text = "\n".join(p.text for p in policies)
        if len(picked) == len(self.policies) or not self.scopes:
            handle, by_id = self.handle, self.by_id
        else:
            import cedarpy

            handle = cedarpy.PolicySet.from_str(text)
            by_id = {f"policy{n}": policy for n, policy in enumerate(policies)}
        # A part counts as read when its name is anywhere in the text (a comment too: more is
        # sent, never less). ``context`` used as a whole value (compared, put in a set) would
        # see what is left out: then every part is sent.
        whole = _WHOLE_CONTEXT.search(text) is not None
        return Slice(
            handle=handle,
            by_id=by_id,
            parts=frozenset(part for part in CONTEXT_PARTS if whole or part in text),
            reads_history="labels" in text or "from" in text,
        )

    def entities_for(self, who: Who) -> Any:
        """The cedarpy ``Entities`` of a call by ``who``: the file's entities with the principal
        merged in (built once per distinct sender, then kept)."""
        cached = self._entities.get(who)
        if cached is not None:
            return cached
        import cedarpy

        users = [u for uid, u in self.users.items() if uid != who.id]
        principal = principal_entity(who, self.users.get(who.id))
        built = cedarpy.Entities.from_json_str(json.dumps([*self.others, *users, principal]))
        self._entities[who] = built
        if len(self._entities) > ENTITY_CACHE:
            self._entities.popitem(last=False)
        return built


def load(
    files: Files,
    tools: Mapping[str, Mapping[str, Any] | None],
    *,
    shown_base: Path | None = None,
) -> PolicySetData:
    """Read, parse and validate the policy set; a ConfigError names the file, line and policy."""
    import cedarpy

    base = shown_base or files.folder
    stamps = files.current_stamps()
    paths = expand(list(files.policies), files.folder)
    policies: list[Policy] = []
    texts: list[str] = []
    for path in paths:
        shown = _shown(path, base)
        found, text = parse_file(path, shown, len(policies))
        policies.extend(found)
        texts.append(text)
    text = "\n".join(texts)
    try:
        handle = cedarpy.PolicySet.from_str(text)
    except ValueError as error:  # each file parsed alone: only a clash between files is left
        raise ConfigError(f"the Cedar policies do not parse together: {error}") from None
    if len(handle) != len(policies):
        raise ConfigError(
            f"Cedar read {len(handle)} policies where toolhooks read {len(policies)}; "
            f"report this with the policy files"
        )
    by_id = {p.cedar_id: p for p in policies}
    permit_text = "\n".join(p.text for p in policies if p.effect == "permit")
    permits = cedarpy.PolicySet.from_str(permit_text)
    entities_list, entities_shown = _read_entities(files, base)
    users = {e["uid"]["id"]: e for e in entities_list if e["uid"]["type"] == "User"}
    others = [e for e in entities_list if e["uid"]["type"] != "User"]
    schema: dict[str, Any] | None = None
    schema_text: str | None = None
    est = json.loads(cedarpy.policies_to_json_str(text)) if text.strip() else {}
    if files.schema == "auto":
        actions = named_actions(est) if est else set()
        schema = build_schema(tools, actions, entities_list, entities_shown)
        schema_text = json.dumps(schema)
    elif files.schema != "none":
        schema_text = read_text(files.folder / files.schema, "the Cedar schema")
    if schema_text is not None:
        parsed_schema = _parse_schema(schema_text, files, base)
        _validate(text, parsed_schema, by_id, files.schema)
        try:
            cedarpy.Entities.from_json_str(json.dumps(entities_list), parsed_schema)
        except ValueError as error:
            raise ConfigError(
                f"the entities do not match the Cedar schema: {' '.join(str(error).split())}",
                file=entities_shown,
            ) from None
    data = PolicySetData(
        policies=tuple(policies),
        by_id=by_id,
        text=text,
        handle=handle,
        permits=permits,
        users=users,
        others=others,
        schema=schema,
        schema_text=schema_text,
        tools=frozenset(tools),
        tool_params=dict(tools),
        files=Files(
            folder=files.folder,
            policies=files.policies,
            entities=files.entities,
            schema=files.schema,
            stamps=stamps,
        ),
        reads_history="labels" in text or "from" in text,
        scopes=_scopes(est, len(policies), entities_list),
    )
    return data


def _scopes(
    est: Mapping[str, Any], count: int, entities: list[dict[str, Any]]
) -> tuple[frozenset[str] | None, ...]:
    """Each policy's actions, from its scope (Cedar's JSON form): ``action == Action::"x"``
    and ``action in [...]`` name theirs; anything else may apply to any action. With Action
    entities in the entities file, ``in`` may reach an action through a group: any action."""
    grouped = any(e["uid"]["type"] == "Action" for e in entities)
    bodies = est.get("staticPolicies", {}) if est else {}
    scopes: list[frozenset[str] | None] = []
    for index in range(count):
        scope = bodies.get(f"policy{index}", {}).get("action", {})
        op = scope.get("op")
        named = [scope["entity"]] if "entity" in scope else list(scope.get("entities", ()))
        if (
            op in ("==", "in")
            and named
            and (op == "==" or not grouped)
            and all(isinstance(e, Mapping) and e.get("type") == "Action" for e in named)
        ):
            scopes.append(frozenset(str(e.get("id")) for e in named))
        else:
            scopes.append(None)
    return tuple(scopes)


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base.resolve()))
    except ValueError:
        return str(path)


def _parse_schema(text: str, files: Files, base: Path) -> Any:
    import cedarpy

    where = "auto" if files.schema == "auto" else _shown(files.folder / files.schema, base)
    try:
        if files.schema == "auto" or text.lstrip().startswith("{"):
            return cedarpy.Schema.from_json_str(text)
        return cedarpy.Schema.from_str(text)
    except ValueError as error:
        message = " ".join(str(error).split())
        if files.schema == "auto":
            raise ConfigError(
                f'[plugins.cedar] schema = "auto": the schema built from the tools is not valid '
                f"Cedar ({message}); give a schema file",
                key="plugins.cedar.schema",
            ) from None
        raise ConfigError(f"the Cedar schema does not parse: {message}", file=where) from None


def _validate(text: str, schema: Any, by_id: Mapping[str, Policy], source: str) -> None:
    import cedarpy

    if not text.strip():
        return
    result = cedarpy.validate_policies(text, schema)
    if result.validation_passed:
        return
    error = result.errors[0]
    policy = by_id.get(error.policy_id)
    message = " ".join(error.error.split())
    hint = (
        ' (schema = "auto" types a tool\'s params from its JSON Schema; a call of a tool the '
        "runtime does not know has none)"
        if source == "auto" and "not found" in message
        else ""
    )
    more = f"; {len(result.errors) - 1} more" if len(result.errors) > 1 else ""
    if policy is None:
        raise ConfigError(f"Cedar validation failed: {message}{more}")
    raise ConfigError(
        f"{policy.called} does not validate against the Cedar schema: {message}{hint}{more}",
        file=policy.file,
        line=policy.line or None,
    )


def _read_entities(files: Files, base: Path) -> tuple[list[dict[str, Any]], str | None]:
    if files.entities is None:
        return [], None
    path = files.folder / files.entities
    shown = _shown(path, base)
    if not path.is_file():
        raise ConfigError(
            f"[plugins.cedar] entities: {files.entities!r} is not a file (looked in "
            f"{files.folder})",
            key="plugins.cedar.entities",
        )
    text = read_text(path, "the Cedar entities file")
    try:
        raw = json.loads(text)
    except ValueError as error:
        line = getattr(error, "lineno", None)
        raise ConfigError(
            f"the entities file is not JSON: {error}", file=shown, line=line
        ) from None
    if not isinstance(raw, list):
        raise ConfigError("the entities file is a JSON list of entities", file=shown)
    out = []
    for index, entity in enumerate(raw):
        out.append(_entity(entity, index, shown))
    import cedarpy

    try:
        cedarpy.Entities.from_json_str(json.dumps(out))
    except ValueError as error:
        raise ConfigError(
            f"the entities file is not Cedar entities: {' '.join(str(error).split())}", file=shown
        ) from None
    return out, shown


def _entity(entity: Any, index: int, shown: str) -> dict[str, Any]:
    where = f"entity {index + 1}"
    if not isinstance(entity, dict):
        raise ConfigError(f"{where} is not a JSON object", file=shown)
    uid = _uid(entity.get("uid"), f"{where}: uid", shown)
    attrs = entity.get("attrs", {})
    if not isinstance(attrs, dict):
        raise ConfigError(
            f"{where} ({uid['type']}::{uid['id']!r}): attrs is not an object", file=shown
        )
    parents = entity.get("parents", [])
    if not isinstance(parents, list):
        raise ConfigError(
            f"{where} ({uid['type']}::{uid['id']!r}): parents is not a list", file=shown
        )
    attrs = dict(attrs)
    if uid["type"] == "User":
        attrs.setdefault("is_owner", False)
    out = {
        "uid": uid,
        "attrs": attrs,
        "parents": [_uid(p, f"{where}: a parent", shown) for p in parents],
    }
    extra = set(entity) - {"uid", "attrs", "parents", "tags"}
    if extra:
        raise ConfigError(f"{where}: unknown keys {', '.join(sorted(extra))}", file=shown)
    return out


def _uid(value: Any, where: str, shown: str) -> dict[str, str]:
    if isinstance(value, dict) and "__entity" in value:
        value = value["__entity"]
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("type"), str)
        or not isinstance(value.get("id"), str)
    ):
        raise ConfigError(f'{where} is {{"type": "...", "id": "..."}}', file=shown)
    return {"type": value["type"], "id": value["id"]}
