"""kgfs selection library: relevance measures, hierarchical selectors, classifiers, evaluation.

Importing ``selection`` never imports Prefect, and imports scikit-learn only when one of the names below is used
(they are imported on first use): a kept model is scored without it (:mod:`selection.scoring`).
"""

from __future__ import annotations

import importlib

_NAMES = {
    "HierarchicalSelector": "selection.base",
    "as_binary_csr": "selection.base",
    "check_hierarchy": "selection.base",
    "available_classifiers": "selection.registry",
    "available_selectors": "selection.registry",
    "get_classifier": "selection.registry",
    "get_selector": "selection.registry",
    "register_classifier": "selection.registry",
    "register_selector": "selection.registry",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'selection' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
