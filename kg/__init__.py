"""kgfs knowledge-graph library: hierarchies, binary feature tables, sources and exports.

Importing ``kg`` never imports Prefect and never touches the network.
"""

from kg.errors import (
    ChecksumError,
    CycleError,
    HierarchyCycleWarning,
    ImplicationError,
    InputFormatError,
    KgfsError,
    UnknownFeatureError,
)
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = [
    "ChecksumError",
    "CycleError",
    "FeatureHierarchy",
    "FeatureTable",
    "HierarchyCycleWarning",
    "ImplicationError",
    "InputFormatError",
    "KgfsError",
    "UnknownFeatureError",
    "atomic_write",
]
