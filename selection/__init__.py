"""kgfs selection library: relevance measures, hierarchical selectors, classifiers, evaluation.

Importing ``selection`` never imports Prefect.
"""

from selection.base import HierarchicalSelector, as_binary_csr, check_hierarchy
from selection.registry import (
    available_classifiers,
    available_selectors,
    get_classifier,
    get_selector,
    register_classifier,
    register_selector,
)

__all__ = [
    "HierarchicalSelector",
    "as_binary_csr",
    "available_classifiers",
    "available_selectors",
    "check_hierarchy",
    "get_classifier",
    "get_selector",
    "register_classifier",
    "register_selector",
]
