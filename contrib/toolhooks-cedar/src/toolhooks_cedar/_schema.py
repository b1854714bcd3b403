"""The Cedar schema ``schema = "auto"`` builds: entity types, and one action per tool with the
context the request mapping gives it (``input`` typed from the tool's JSON Schema).

JSON Schema to Cedar: ``string`` is String, ``integer`` Long, ``number`` decimal, ``boolean``
Boolean, ``array`` a Set of its items' type, ``object`` with ``properties`` a Record (its
``required`` names are required attributes, the rest optional: test them with ``has``). A param
whose type Cedar cannot say (a union, an object without properties, an array of mixed items) is
left out of the record, so a policy that reads it fails validation and says which attribute: give
a schema file for such tools. An action the policies name that no registered tool has (the calls
of coding agents' hooks, of the MCP proxy) gets an empty ``input``, and the context's other
parts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolhooks import ConfigError

from ._exec import FACTS

NAMESPACE: Final = ""
STRING: Final = {"type": "String"}
LONG: Final = {"type": "Long"}
BOOL: Final = {"type": "Boolean"}
DECIMAL: Final = {"type": "Extension", "name": "decimal"}
STRINGS: Final = {"type": "Set", "element": STRING}
MAX_SCHEMA_DEPTH: Final = 16
BUILTIN_TYPES: Final = ("User", "Role", "Agent")


def cedar_type(schema: Any, depth: int = 0) -> dict[str, Any] | None:
    """The Cedar type of a JSON Schema, or None when Cedar cannot say it."""
    if not isinstance(schema, Mapping) or depth > MAX_SCHEMA_DEPTH:
        return None
    kind = schema.get("type")
    if kind is None and "enum" in schema:
        values = schema["enum"]
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            return dict(STRING)
        return None
    if kind == "string":
        return dict(STRING)
    if kind == "integer":
        return dict(LONG)
    if kind == "number":
        return dict(DECIMAL)
    if kind == "boolean":
        return dict(BOOL)
    if kind == "array":
        element = cedar_type(schema.get("items"), depth + 1)
        return None if element is None else {"type": "Set", "element": element}
    if kind == "object":
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            return None
        return record(properties, schema.get("required", ()), depth + 1)
    return None


def record(properties: Mapping[str, Any], required: Any, depth: int = 0) -> dict[str, Any]:
    needed = set(required) if isinstance(required, (list, tuple)) else set()
    attributes: dict[str, Any] = {}
    for name, prop in properties.items():
        found = cedar_type(prop, depth)
        if found is None:
            continue
        found["required"] = name in needed
        attributes[str(name)] = found
    return {"type": "Record", "attributes": attributes}


def context_type(parameters: Mapping[str, Any] | None) -> dict[str, Any]:
    """The context of one action: ``input`` from the tool's params, and the rest."""
    properties = (parameters or {}).get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = (parameters or {}).get("required", ())
    given = record(properties, required)
    # None is left out of the request (Cedar has no null): a param that may be null is optional.
    for name, prop in properties.items():
        if name in given["attributes"] and _nullable(prop):
            given["attributes"][name]["required"] = False
    sources = {
        str(name): {**STRINGS, "required": True} for name in properties if isinstance(name, str)
    }
    exec_facts = {name: dict(STRINGS) for name in FACTS}
    exec_facts["opaque"] = dict(BOOL)
    exec_facts["unknown"] = dict(BOOL)
    return {
        "type": "Record",
        "attributes": {
            "input": given,
            "session": {
                "type": "Record",
                "attributes": {"id": STRING, "labels": STRINGS, "calls": LONG},
            },
            "from": {"type": "Record", "attributes": sources},
            "now": {
                "type": "Record",
                "attributes": {"date": STRING, "hour": LONG, "weekday": LONG},
            },
            "exec": {"type": "Record", "attributes": exec_facts},
        },
    }


def _nullable(prop: Any) -> bool:
    return isinstance(prop, Mapping) and (
        prop.get("nullable") is True or prop.get("default", 0) is None
    )


def entity_types(entities: list[dict[str, Any]], shown: str | None) -> dict[str, Any]:
    """The entity types: User (with the sender's attributes), Role, Agent, and every type the
    entities file has, with the attributes and parent types its entities show."""
    types: dict[str, dict[str, Any]] = {
        "User": {
            "memberOfTypes": ["Role"],
            "shape": {
                "type": "Record",
                "attributes": {
                    "name": {**STRING, "required": False},
                    "channel": {**STRING, "required": False},
                    "is_owner": {**BOOL, "required": True},
                },
            },
        },
        "Role": {"memberOfTypes": []},
        "Agent": {"memberOfTypes": []},
    }
    seen_attrs: dict[str, list[set[str]]] = {}
    for entity in entities:
        kind = entity["uid"]["type"]
        spec = types.setdefault(kind, {"memberOfTypes": []})
        for parent in entity.get("parents", ()):
            if parent["type"] not in spec["memberOfTypes"]:
                spec["memberOfTypes"].append(parent["type"])
        attrs = entity.get("attrs", {})
        seen_attrs.setdefault(kind, []).append(set(attrs))
        shape = spec.setdefault("shape", {"type": "Record", "attributes": {}})["attributes"]
        for name, value in attrs.items():
            found = _value_type(value)
            if found is None:
                raise ConfigError(
                    f"entity {kind}::{entity['uid']['id']!r}: attribute {name!r} has a value "
                    f"whose Cedar type cannot be told (an empty set, or mixed items): give a "
                    f'schema file ([plugins.cedar] schema = "...")',
                    file=shown,
                )
            known = shape.get(name)
            if known is not None and _bare(known) != _bare(found):
                raise ConfigError(
                    f"entity type {kind}: attribute {name!r} has two types in the entities file "
                    f"({_bare(known)} and {_bare(found)})",
                    file=shown,
                )
            if known is None:
                required = kind != "User" or name == "is_owner"
                shape[name] = {**found, "required": required}
    for kind, attr_sets in seen_attrs.items():
        shape = types[kind].get("shape", {}).get("attributes", {})
        for name, spec in shape.items():
            if kind == "User" and name in ("name", "channel", "is_owner"):
                continue
            if any(name not in attrs for attrs in attr_sets) or kind == "User":
                spec["required"] = False
    for kind in types:
        types[kind]["memberOfTypes"] = sorted(types[kind]["memberOfTypes"])
    return types


def _bare(spec: Mapping[str, Any]) -> Any:
    return {
        k: _bare(v) if isinstance(v, Mapping) else v for k, v in spec.items() if k != "required"
    }


def _value_type(value: Any) -> dict[str, Any] | None:
    if isinstance(value, bool):
        return dict(BOOL)
    if isinstance(value, int):
        return dict(LONG)
    if isinstance(value, str):
        return dict(STRING)
    if isinstance(value, list):
        kinds = [_value_type(item) for item in value]
        if not kinds or any(k is None for k in kinds):
            return None
        first = kinds[0]
        assert first is not None
        if any(_bare(k or {}) != _bare(first) for k in kinds):
            return None
        return {"type": "Set", "element": first}
    if isinstance(value, Mapping):
        if "__entity" in value:
            return {"type": "Entity", "name": value["__entity"].get("type")}
        if "__extn" in value:
            return {"type": "Extension", "name": value["__extn"].get("fn")}
        attributes = {}
        for name, item in value.items():
            found = _value_type(item)
            if found is None:
                return None
            attributes[str(name)] = found
        return {"type": "Record", "attributes": attributes}
    return None


def build_schema(
    tools: Mapping[str, Mapping[str, Any] | None],
    actions: Iterable[str],
    entities: list[dict[str, Any]],
    entities_file: str | None,
) -> dict[str, Any]:
    """The schema (Cedar's JSON schema format) for these tools (name -> params JSON Schema),
    these other actions, and the entity types of ``entities``."""
    action_specs: dict[str, Any] = {}
    for name in sorted({*tools, *actions}):
        action_specs[name] = {
            "appliesTo": {
                "principalTypes": ["User"],
                "resourceTypes": ["Agent"],
                "context": context_type(tools.get(name)),
            }
        }
    return {
        NAMESPACE: {
            "entityTypes": entity_types(entities, entities_file),
            "actions": action_specs,
        }
    }


def named_actions(est: Mapping[str, Any]) -> set[str]:
    """The actions a policy set's scopes name (``action == Action::"x"``, ``action in [...]``)."""
    found: set[str] = set()
    for body in est.get("staticPolicies", {}).values():
        scope = body.get("action", {})
        entities = []
        if "entity" in scope:
            entities.append(scope["entity"])
        entities += scope.get("entities", [])
        for entity in entities:
            if isinstance(entity, Mapping) and entity.get("type") == "Action":
                found.add(str(entity.get("id")))
    return found
