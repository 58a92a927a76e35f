"""Modules that are also the API call of the same name.

``finchunk.chunk``, ``finchunk.ask`` and ``finchunk.evaluate`` are modules (the chunkers,
the ask command's logic, the evaluation harness) and, called, the functions of
:mod:`finchunk.api`: ``finchunk.chunk(doc)`` is ``finchunk.api.chunk(doc)``. Python sets a
package's attribute to its submodule whenever the submodule is imported, so the name cannot
stay bound to a function; the module is made callable instead (its attributes stay as they
are). Each of those modules calls :func:`make_callable` on itself as it is imported.
"""

from __future__ import annotations

import sys
from importlib import import_module
from inspect import Signature, signature
from types import ModuleType
from typing import Any


class CallableModule(ModuleType):
    """A module whose call is the :mod:`finchunk.api` function ``__api_name__``."""

    __api_name__: str

    def _target(self) -> Any:
        return getattr(import_module("finchunk.api"), self.__api_name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._target()(*args, **kwargs)

    @property
    def __signature__(self) -> Signature:  # inspect.signature(finchunk.chunk): the call's
        return signature(self._target())


def make_callable(module_name: str, api_name: str) -> None:
    """Make the module ``module_name`` call ``finchunk.api.<api_name>``."""
    module = sys.modules[module_name]
    module.__class__ = CallableModule
    module.__api_name__ = api_name  # type: ignore[attr-defined]
