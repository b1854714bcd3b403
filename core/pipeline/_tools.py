"""Tools registered on a runtime: a spec, a validator built from the signature, and a callable."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from ..records._models import ToolSpec

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError


class ParamsInvalid(ValueError):
    """Params that fail the tool's schema; the message names the field."""


_JSON_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
_SIMPLE_ANNOTATIONS: dict[Any, frozenset[type]] = {
    str: frozenset({str}),
    int: frozenset({int}),
    float: frozenset({float}),
    bool: frozenset({bool}),
    Any: _JSON_SCALARS,
}
FastFields = dict[str, frozenset[type]]


class Tool:
    """A registered tool. ``validate`` returns (kwargs for the function, JSON-shaped params)."""

    __slots__ = (
        "argument_names",
        "fast_fields",
        "function",
        "model",
        "required",
        "spec",
        "takes_params",
    )

    def __init__(
        self,
        function: Callable[..., Any],
        spec: ToolSpec,
        model: type[BaseModel] | None,
        argument_names: Mapping[str, str] | None = None,
    ) -> None:
        self.function = function
        self.spec = spec
        self.model = model
        # field name in the model -> parameter name of the function (they differ only where a
        # parameter would shadow a pydantic attribute, such as ``schema`` or ``json``)
        self.argument_names = dict(argument_names or {})
        self.takes_params = model is None or bool(model.model_fields)
        self.fast_fields, self.required = _fast_fields(model)

    def validate(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.model is None or (not params and not self.takes_params):
            return params, params
        fast = self.fast_fields
        if fast is not None and params.keys() >= self.required:
            # Params whose every value already has its field's exact type (a str for a str, an
            # int for an int, ...) are what pydantic would return unchanged: skip it.
            for key, value in params.items():
                accepted = fast.get(key)
                if accepted is None or type(value) not in accepted:
                    break
            else:
                return params, params
        parsed = strict_validate(self.model, params)
        given = parsed.model_fields_set
        names = self.argument_names
        kwargs = {names.get(field, field): getattr(parsed, field) for field in given}
        shown = parsed.model_dump(mode="json", include=given, by_alias=True)
        extra = parsed.model_extra
        if extra:  # a ``**kwargs`` tool: the undeclared keys pass through exactly as given
            for key in extra:
                kwargs[key] = shown[key] = params[key]
        return kwargs, shown


def strict_validate(model: type[BaseModel], params: dict[str, Any]) -> BaseModel:
    """Validate ``params`` the way a JSON proposal is read, in pydantic's strict mode.

    No lax coercion: ``"true"`` is not a bool, ``"5"`` and ``5.0`` are not ints, ``1`` is not a
    bool (an int is a number). Reading the params as JSON keeps what JSON cannot spell working:
    a date or an enum from its string, a tuple from an array, a model from an object. Params that
    are not JSON (bytes, NaN) are validated as Python objects, strictly too.
    """
    try:
        text = json.dumps(params, allow_nan=False)
    except (TypeError, ValueError):
        text = None
    try:
        if text is None:
            return model.model_validate(params, strict=True)
        return model.model_validate_json(text, strict=True)
    except ValueError as exc:  # pydantic's ValidationError is one (imported with a model)
        from pydantic import ValidationError

        if not isinstance(exc, ValidationError):
            raise
        raise ParamsInvalid(describe_validation_error(exc)) from None


def _fast_fields(model: type[BaseModel] | None) -> tuple[FastFields | None, frozenset[str]]:
    """Input key -> the value types that validate to themselves, when every field has one.

    Only plain ``str`` / ``int`` / ``float`` / ``bool`` / ``Any`` fields, optionally ``| None``,
    without constraints qualify; any other field sends every call through pydantic.
    """
    if model is None or not model.model_fields:
        return None, frozenset()
    fast: FastFields = {}
    required: set[str] = set()
    for name, info in model.model_fields.items():
        if info.metadata or info.validation_alias is not None:
            return None, frozenset()
        annotation = info.annotation
        optional = False
        if get_origin(annotation) in (Union, UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            optional = len(members) == 1 and len(get_args(annotation)) == 2
            annotation = members[0] if optional else annotation
        try:
            accepted = _SIMPLE_ANNOTATIONS.get(annotation)
        except TypeError:  # an unhashable annotation: not a simple one
            accepted = None
        if accepted is None or (optional and annotation is Any):
            return None, frozenset()
        key = info.alias or name
        fast[key] = accepted | {type(None)} if optional else accepted
        if info.is_required():
            required.add(key)
    return fast, frozenset(required)


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for problem in exc.errors()[:5]:
        where = ".".join(str(p) for p in problem["loc"]) or "params"
        parts.append(f"field '{where}': {problem['msg']}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def build_tool(
    function: Callable[..., Any],
    name: str | None = None,
    tags: Iterable[str] = (),
    description: str | None = None,
) -> Tool:
    """Make a :class:`Tool` from a function; the JSON Schema comes from its signature."""
    if not callable(function):
        raise TypeError(f"a tool must be callable, got {type(function).__name__}")
    tool_name = name or getattr(function, "__name__", None)
    if not isinstance(tool_name, str) or not tool_name or not tool_name.isprintable():
        raise ValueError(f"invalid tool name {tool_name!r}")
    tag_set = frozenset(tags)
    if isinstance(tags, str) or not all(isinstance(t, str) and t for t in tag_set):
        raise ValueError("tags must be a list of non-empty strings")
    text = description if description is not None else inspect.getdoc(function) or ""
    model, argument_names = _signature_model(function, tool_name)
    schema = model.model_json_schema(by_alias=True)
    schema.pop("title", None)
    return Tool(function, ToolSpec(tool_name, text.strip(), schema, tag_set), model, argument_names)


def _signature_model(
    function: Callable[..., Any], tool_name: str
) -> tuple[type[BaseModel], dict[str, str]]:
    # pydantic is imported when a tool is registered, not when toolhooks starts.
    from pydantic import BaseModel, ConfigDict, Field, create_model

    signature = inspect.signature(function)
    try:
        hints = get_type_hints(function)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    argument_names: dict[str, str] = {}
    extra: Literal["forbid", "allow"] = "forbid"
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            raise ValueError(f"tool {tool_name!r}: *args cannot be described as a schema")
        if parameter.kind is parameter.VAR_KEYWORD:
            extra = "allow"  # additionalProperties: true; the extra keys are passed through
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ValueError(f"tool {tool_name!r}: positional-only parameters are not supported")
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        field = parameter.name
        if field.startswith(("model_", "_")) or hasattr(BaseModel, field):
            field = f"param_{len(argument_names)}"
            argument_names[field] = parameter.name
            annotation = Annotated[annotation, Field(alias=parameter.name)]
        fields[field] = (annotation, default)
    model: type[BaseModel] = create_model(  # type: ignore[call-overload,unused-ignore]
        "ToolParams",
        __config__=ConfigDict(extra=extra, arbitrary_types_allowed=True, populate_by_name=False),
        **fields,
    )
    return model, argument_names
