"""Building a plugin object from its config: a class with a pydantic ``Config`` gets its validated
table; any other class, module or instance takes no options of its own, and a key in its table
is an error naming the key (as ``extra="forbid"`` would)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..config._lazy import hand_checked, is_lazy
from ..config._settings import FRAMEWORK_KEYS, LoadedConfig, did_you_mean, keys_at
from ..records._errors import PluginValidationError

if TYPE_CHECKING:
    from pydantic import BaseModel


def config_model(target: Any) -> type[BaseModel] | None:
    model = getattr(target, "Config", None)
    if not inspect.isclass(model):
        return None  # no Config: pydantic is not imported for it
    from pydantic import BaseModel

    return model if issubclass(model, BaseModel) else None


def config_location(target: Any, name: str) -> tuple[str, ...]:
    key = getattr(target, "config_key", None)
    return tuple(key.split(".")) if isinstance(key, str) and key else ("plugins", name)


def build(target: Any, name: str, config: LoadedConfig) -> Any:
    """A class is instantiated with its validated ``Config``; a module or instance is used as is.

    Keys in ``[plugins.<name>]`` that nothing reads are errors, as for a ``Config`` model with
    ``extra="forbid"``: a typo such as ``mdoe = "audit"`` or ``enabeld = false`` must not be
    silently ignored (the plugin would run, enforcing, while the file says otherwise).
    """
    if is_lazy(target):
        if not own_table(target, name, config):
            return target()  # its defaults: no model built (see config._lazy)
        if config_location(target, name) == ("plugins", name):
            checked = hand_checked(target, config.plugin_settings(name)[1])
            if checked is not None:
                return target(checked)  # a table in its plain shapes: no model built either
    model = config_model(target)
    if not inspect.isclass(target) or model is None:
        if model is None:
            _no_own_keys(name, config, "it takes no options of its own")
        return target if not inspect.isclass(target) else target()
    location = config_location(target, name)
    if location == ("plugins", name):
        _no_framework_fields(name, model)
        _, own = config.plugin_settings(name)
    else:
        table = ".".join(location)
        _no_own_keys(name, config, f"its options are read from [{table}]", model, table)
        own = config.section(table)
    from pydantic import ValidationError

    try:
        settings = model.model_validate(own)
    except ValidationError as exc:
        also = FRAMEWORK_KEYS if location == ("plugins", name) else ()
        raise config.validation_error(exc, *location, model=model, also=also) from None
    factory: Callable[[BaseModel], Any] = target
    return factory(settings)


def own_table(target: Any, name: str, config: LoadedConfig) -> bool:
    """Whether the config has keys for ``target`` (in ``[plugins.<name>]``, or its own table)."""
    location = config_location(target, name)
    _, own = config.plugin_settings(name)
    return bool(own) or (location != ("plugins", name) and bool(config.section(".".join(location))))


def _no_framework_fields(name: str, model: type[BaseModel]) -> None:
    """A ``Config`` field spelled like a framework key would never get its value: refuse it."""
    for field_name, info in model.model_fields.items():
        for spelled in (field_name, info.alias, info.validation_alias):
            if isinstance(spelled, str) and spelled in FRAMEWORK_KEYS:
                raise PluginValidationError(
                    f"plugin {name!r}: its Config field {field_name!r} is named like the "
                    f"framework key {spelled!r}, which [plugins.{name}] gives to toolhooks "
                    f"itself (framework keys: {', '.join(FRAMEWORK_KEYS)}); rename the field"
                )


def _no_own_keys(
    name: str,
    config: LoadedConfig,
    why: str,
    model: type[BaseModel] | None = None,
    table: str | None = None,
) -> None:
    _, own = config.plugin_settings(name)
    if own:
        key = str(next(iter(own)))
        if model is not None and table is not None and key in keys_at(model, []):
            raise config.error(
                f"{key!r} does not go in [plugins.{name}]: {name} reads its options from "
                f"[{table}]; move it there",
                "plugins",
                name,
                key,
            )
        framework = ", ".join(FRAMEWORK_KEYS)
        raise config.error(
            f"unknown key {key!r} in [plugins.{name}]{did_you_mean(key, FRAMEWORK_KEYS)} ({why}; "
            f"the keys every plugin takes are {framework})",
            "plugins",
            name,
            key,
        )
