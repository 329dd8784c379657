"""kgfs knowledge-graph library: hierarchies, binary feature tables, sources and exports.

- :mod:`kg.hierarchy` (:class:`FeatureHierarchy`, the feature DAG) and :mod:`kg.table`
  (:class:`FeatureTable`, the sparse 0/1 matrix closed under it);
- :mod:`kg.ontology` (the Gene Ontology route) and :mod:`kg.rdf` (the DBpedia route);
- :mod:`kg.formats` (ARFF, CSV, the published datasets' files), :mod:`kg.datasets` (the dataset
  registry; its manifest and bundled data ship inside the package as ``kg/_datasets``);
- :mod:`kg.store` (the content-addressed stage store and its keys, which the evaluation grid uses too);
- :mod:`kg.errors`, :mod:`kg.iri`, :mod:`kg.files`: errors and the retry rule, IRI safety,
  atomic writes and file hashes.

Importing ``kg`` never imports Prefect and never touches the network.

Examples
--------
>>> from kg import FeatureHierarchy, FeatureTable
>>> h = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
>>> FeatureTable.from_facts({"g": ["GO:2"]}, h).X.toarray().astype(int).tolist()
[[1, 1]]
"""

import importlib

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

_LAZY = {"FeatureHierarchy": "kg.hierarchy", "FeatureTable": "kg.table"}


def __getattr__(name):  # numpy/scipy load with the first table or hierarchy, not with `import kg` (`kgfs --help`)
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


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
