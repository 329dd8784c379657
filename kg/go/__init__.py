"""The Gene Ontology route: ontology (OBO), gene annotations (GAF or tables), labels, and the table.

Genes are instances, GO terms features; a gene has a term when it is annotated with it or with
one of its descendants (the ``is_a`` closure, optionally more relations).

- :mod:`kg.go.obo`: the ontology (:func:`read_obo`, :class:`GeneOntology`).
- :mod:`kg.go.ontology`: any ontology (OBO, OWL, GO.db-style tables) and its sub-ontology by roots
  (:func:`read_ontology`).
- :mod:`kg.go.annotations`: instance -> direct terms (GAF 2.x, GPAD + GPI, HPO hpoa, two-column tables;
  ``NOT`` apart) and labels.
- :mod:`kg.go.facts`: labels first (a table, an aspect, a list of positives), then the labelled
  instances' annotations (:func:`read_facts`).
- :mod:`kg.go.table`: the closed, labelled :class:`~kg.table.FeatureTable`.
- :mod:`kg.go.annotated`: an ontology and an annotation file as a knowledge source
  (:class:`OntologyAnnotations`, for :class:`kg.features.KGFeatures`).
- :mod:`kg.routes.go`: the route as a kind of input of a run (:class:`~kg.routes.go.OntologyInput`).

The names below are imported on first use: :mod:`kg.routes.go` (what the command line reads to
list its options) stays light, numpy and scipy load with the first ontology.

Examples
--------
>>> go = read_obo("go.obo.gz", namespaces=["BP"])                       # doctest: +SKIP
>>> facts = read_annotations("genes.gaf", evidence={"EXP", "IDA"})      # doctest: +SKIP
>>> table = build_table(go, facts, read_labels("labels.tsv"), min_support=3)  # doctest: +SKIP
"""

import importlib

_LAZY = {"read_annotations": "kg.go.annotations", "read_labels": "kg.go.annotations", "NAMESPACES": "kg.go.obo",
         "GeneOntology": "kg.go.obo", "normalize_namespaces": "kg.go.obo", "read_obo": "kg.go.obo",
         "ancestor_closure": "kg.go.table", "build_table": "kg.go.table",
         "read_ontology": "kg.go.ontology", "read_annotation_set": "kg.go.annotations", "read_facts": "kg.go.facts",
         "OntologyAnnotations": "kg.go.annotated"}

__all__ = ["GeneOntology", "OntologyAnnotations", "NAMESPACES", "ancestor_closure", "build_table",
           "normalize_namespaces", "read_annotation_set", "read_annotations", "read_facts", "read_labels", "read_obo",
           "read_ontology"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg.go' has no attribute {name!r}")
