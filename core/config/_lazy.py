"""A plugin's ``Config`` model named, not built, until something reads it.

Each pydantic model class costs a cold process several M instructions to create. A plugin whose
table is absent runs on its defaults, which need no validation: with these two descriptors its
model is built only when a table is given or someone reads it (event_log, loop_detection and
result_budget on plain defaults: 960 M -> 931 M for ``bench/cold_process.py``'s one-call
process, callgrind).

- ``Config = LazyConfig("pkg._config", "MyConfig")``: reading ``Plugin.Config`` imports the model.
  The loader builds such a class with no table of its own as ``Plugin()``, so the class must
  make ``Plugin()`` the same plugin as ``Plugin(Plugin.Config())``.
- ``LazyConfig(..., check=function)``: a table that is given goes to ``function`` first, a
  hand-written check of the plain shapes that returns the settings to build the plugin with, or
  None when the model must decide (and word the error). A plugin whose table is usually given
  (the rules plugin's ``[plugins.rules]``) then builds no model either
  (docs/decisions/rules-hand-check.md).
- ``config = ConfigOnRead()``: an instance that was given no config reads ``self.config`` as
  ``type(self).Config()``, built on the first read; afterwards (and when ``__init__`` assigned
  one) it is an ordinary instance attribute, at no cost to the hooks that read it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from inspect import getattr_static, isclass
from typing import Any, Generic, TypeVar

from .._public import public

M = TypeVar("M")


class LazyConfig(Generic[M]):
    """A class attribute that is the model ``name`` of ``module``, imported when first read."""

    def __init__(
        self, module: str, name: str, *, check: Callable[[Mapping[str, Any]], Any] | None = None
    ) -> None:
        self.module = module
        self.name = name
        self.check = check
        """The table's hand check: the settings, or None for the model to validate the table."""
        self._model: type[M] | None = None

    def __get__(self, instance: object, owner: type | None = None) -> type[M]:
        model = self._model
        if model is None:
            model = self._model = getattr(import_module(self.module), self.name)
        return model


class ConfigOnRead:
    """An instance attribute that is ``type(instance).Config()`` until something else is set."""

    attribute = "config"

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = type(instance).Config()  # type: ignore[attr-defined]
        instance.__dict__[self.attribute] = value  # a non-data descriptor: this wins from now on
        return value


def is_lazy(target: Any) -> bool:
    """True when ``target`` is a class whose ``Config`` is a :class:`LazyConfig` (not yet read)."""
    return isclass(target) and isinstance(getattr_static(target, "Config", None), LazyConfig)


def hand_checked(target: Any, table: Mapping[str, Any]) -> Any | None:
    """What the hand check of ``target``'s lazy ``Config`` makes of ``table`` (None: it has
    none, or the model must validate the table)."""
    lazy = getattr_static(target, "Config", None)
    check = lazy.check if isinstance(lazy, LazyConfig) else None
    return None if check is None else check(table)


def lazy_exports(module: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module's ``__getattr__`` (PEP 562) importing each name in ``exports`` from the module
    named beside it, relative to ``module``'s package (``{"MyConfig": "._config"}``), when first
    read, then keeping it in ``module``."""

    def __getattr__(name: str) -> object:
        source = exports.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target = sys.modules[module]
        value = getattr(import_module(source, target.__package__), name)
        setattr(target, name, value)
        return value

    return __getattr__


public("toolhooks.kit", ConfigOnRead, LazyConfig, lazy_exports)
