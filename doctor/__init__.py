"""gpudoctor: finds out why PyTorch will not use the GPU, names the cause and prints the fix.

In Python and notebooks: ``gpudoctor.check()``, ``gpudoctor.verify()``, ``gpudoctor.diagnose(text_or_path)`` and
``gpudoctor.facts()`` (see ``gpudoctor.api``). They are loaded on first use, so ``import gpudoctor`` stays cheap.
"""

from __future__ import annotations

import sys
import types
from typing import Any

__version__ = "0.1.0"

# Names served lazily from gpudoctor.api.
_API = ("check", "diagnose", "example", "Diagnosis", "FactsView")
# Submodules that share their name with an API function: the module object is made callable.
_CALLABLE_MODULES = ("examples", "facts", "verify")


class _CallableModule(types.ModuleType):
    """A submodule that, called, runs the gpudoctor.api function of the same name (``gpudoctor.facts()``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from gpudoctor import api

        return getattr(api, self.__name__.rsplit(".", 1)[1])(*args, **kwargs)


class _Package(types.ModuleType):
    """This package: binds ``examples``, ``facts`` and ``verify`` to callable submodules whenever they are imported."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _CALLABLE_MODULES and type(value) is types.ModuleType:
            value.__class__ = _CallableModule
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    if name in _API:
        from gpudoctor import api

        return getattr(api, name)
    if name in _CALLABLE_MODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package
