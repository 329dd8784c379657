"""The dataset registry's loaders of ontology datasets (:data:`kg.datasets.LOADERS`): GO bundles, any ontology.

Examples
--------
>>> from kg.datasets import LOADERS
>>> LOADERS.get("go_bundle") is load_go_bundle
True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from kg.dataset_files import stat_key

__all__ = ["load_go_bundle", "load_ontology", "read_ontology_cached"]


@lru_cache(maxsize=8)
def _ontology(path: str, size: int, mtime_ns: int, relations: tuple, namespaces: tuple | None):
    from kg.ontology.obo import read_obo

    return read_obo(path, relations=relations, namespaces=namespaces)


def read_ontology_cached(path: Path, relations=("is_a",), namespaces=None):
    """An OBO ontology, read once per file version (its size and mtime) and options."""
    from kg.ontology.obo import normalize_namespaces

    rel = (relations,) if isinstance(relations, str) else tuple(relations)
    return _ontology(str(path), *stat_key(path), rel, normalize_namespaces(namespaces))


def load_go_bundle(
    paths, *, namespaces=None, relations=("is_a",), min_support=1, unknown="raise", on_obsolete="raise",
    evidence=None,
):
    """An OBO ontology, a GAF file and labels (the bundled and downloaded GO datasets)."""
    from kg.ontology.annotations import read_annotations, read_labels
    from kg.ontology.table import term_table

    go = read_ontology_cached(paths["ontology"], relations, namespaces)
    ann = read_annotations(paths["annotations"], evidence=evidence)
    labels = read_labels(paths["labels"]) if "labels" in paths else None
    return term_table(go, ann, labels, min_support=min_support, unknown=unknown, on_obsolete=on_obsolete)


def load_ontology(paths, **options):
    """Any ontology with its annotations (HPO diseases, human genes x GO), as the ontology route builds it."""
    from kg.ontology.facts import ontology_table

    return ontology_table(paths, options)
