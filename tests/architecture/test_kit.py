"""``toolhooks.kit``: one list of names, each resolving to the object its private module defines,
from a layer below the kit's, imported only when first used, and documented. The list is written
once as the facade's is, and its classes and functions are named ``toolhooks.kit.X``: both proved
with the facade's in test_public_names.py."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import toolhooks.kit as kit

_spec = importlib.util.spec_from_file_location("layers", Path(__file__).with_name("test_layers.py"))
assert _spec is not None and _spec.loader is not None
layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layers)


def test_every_name_is_its_private_modules_object() -> None:
    for name, module in kit._EXPORTS.items():
        assert getattr(kit, name) is getattr(importlib.import_module(module), name), name


def test_every_name_comes_from_a_layer_below_the_kits() -> None:
    """Or from the kit's own modules (``_process``, ``_toml``: pieces no lower layer owns)."""
    mine = layers.LAYERS.index(("kit",))
    for name, module in kit._EXPORTS.items():
        theirs = layers.layer_of(module)
        own = theirs == mine and module.startswith("toolhooks.kit._")
        assert theirs is not None and (theirs < mine or own), f"{name} from {module}"


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        kit.nothing_here  # noqa: B018
    except AttributeError as exc:
        assert "toolhooks.kit" in str(exc) and "nothing_here" in str(exc)
    else:
        raise AssertionError("toolhooks.kit.nothing_here resolved")


def test_importing_the_kit_imports_none_of_its_names_modules() -> None:
    # config._lazy is the kit's own machinery (lazy_exports), imported with it
    lazy = sorted(set(kit._EXPORTS.values()) - {"toolhooks.config._lazy"})
    probe = (
        "import sys, toolhooks.kit\n"
        f"print(sorted(m for m in {lazy!r} if m in sys.modules))\n"
        "from toolhooks.kit import Wildcards\n"
        "print('toolhooks.registry._names' in sys.modules, 'toolhooks.stores._state' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split("\n")
    assert out[:2] == ["[]", "True False"]


def test_every_callable_and_class_has_a_docstring() -> None:
    missing = [
        name
        for name in kit.__all__
        if callable(obj := getattr(kit, name)) and not (obj.__doc__ or "").strip()
    ]
    assert missing == []


def test_the_reference_names_every_external_blocked_tool() -> None:
    """Its text is written on the reference page (a data name has no docstring to render)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "kit.md").read_text()
    assert all(f"``{name}``" in page for name in kit.EXTERNAL_BLOCKED_TOOLS)
