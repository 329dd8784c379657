"""The docstring examples of every module of ``selection.measures`` run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import selection.measures as package

MODULES = [package.__name__] + [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
