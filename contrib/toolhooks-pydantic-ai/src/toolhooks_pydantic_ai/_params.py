"""Arguments between PydanticAI and toolhooks: Python objects one way, JSON-compatible values back.

PydanticAI hands a tool its arguments already validated into Python objects (``date``, models,
enums). toolhooks hooks and approvers read JSON-compatible params, and what they decide on must be
turned back into the tool's own types by PydanticAI's own validator, never by a second copy of it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.toolsets import ToolsetTool
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python


class ArgumentsUnreadable(ValueError):
    """Validated arguments that have no JSON form (an arbitrary object with no serializer)."""


def json_params(args: Mapping[str, Any]) -> dict[str, Any]:
    """The validated arguments as plain JSON values, keyed by the names the model used.

    Models dump by alias (the schema the model was shown), dates and times as ISO 8601 strings,
    enums as their values, tuples and sets as lists.
    """
    try:
        params = to_jsonable_python(dict(args), by_alias=True)
    except (PydanticSerializationError, ValueError, TypeError) as exc:
        raise ArgumentsUnreadable(str(exc).splitlines()[0]) from None
    if not isinstance(params, dict):  # pragma: no cover - a dict always dumps to a dict
        raise ArgumentsUnreadable(f"arguments dumped to {type(params).__name__}, not an object")
    return params


async def revalidate(
    tool: ToolsetTool[Any], name: str, params: dict[str, Any], ctx: RunContext[Any]
) -> dict[str, Any]:
    """Params a hook or an editor changed, validated again by the tool's own PydanticAI validator
    (its schema, then its ``args_validator`` function if it has one).

    They are read as JSON in strict mode, as the core validates params: a date may be spelled as
    its ISO string, but ``"true"`` is not a bool and ``1`` is not ``True``, so a hook's guard on
    the value it saw cannot be slipped past by a coercion afterwards.

    Raises ``ValueError`` naming the tool and the fields when they do not fit.
    """
    try:
        validated = tool.args_validator.validate_json(
            to_json(params), strict=True, context=ctx.validation_context
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {error['msg']}"
            for error in exc.errors()[:5]
        )
        raise ValueError(
            f"the params toolhooks decided on do not fit tool '{name}' ({problems})"
        ) from None
    if not isinstance(validated, dict):  # pragma: no cover - function tools validate to a dict
        raise ValueError(f"tool '{name}' validated its params to {type(validated).__name__}")
    if tool.args_validator_func is not None:
        try:
            checked = tool.args_validator_func(ctx, **validated)
            if inspect.isawaitable(checked):
                await checked
        except ModelRetry as exc:
            raise ValueError(
                f"the params toolhooks decided on do not fit tool '{name}' ({exc.message})"
            ) from None
    return validated
