"""Any ontology and its annotations: the ontology (OBO, OWL, GO.db-style tables), annotation files
(GAF, GPAD + GPI, HPO hpoa, tables), labels, and the table. GO is one such ontology: a dataset and the default.

Instances (genes, diseases) are annotated with terms; a term is a feature, and an instance has it when it is
annotated with it or with one of its descendants (the ``is_a`` closure, optionally more relations).

- :mod:`kg.ontology.obo`: an OBO ontology (:func:`read_obo`, :class:`GeneOntology`).
- :mod:`kg.ontology.read`: any ontology (OBO, OWL, tables) and its sub-ontology by roots
  (:func:`read_ontology`).
- :mod:`kg.ontology.annotations`: instance -> direct terms (GAF 2.x, GPAD + GPI, HPO hpoa, two-column tables;
  ``NOT`` apart) and labels.
- :mod:`kg.ontology.facts`: labels first (a table, an aspect, a list of positives), then the labelled
  instances' annotations (:func:`read_facts`).
- :mod:`kg.ontology.table`: the closed, labelled :class:`~kg.table.FeatureTable`.
- :mod:`kg.ontology.source`: an ontology and an annotation file as a knowledge source
  (:class:`OntologyAnnotations`, for :class:`kg.features.KGFeatures`).
- :mod:`kg.ontology.route`: the route as a kind of input of a run (:class:`~kg.ontology.route.OntologyInput`).

The names below are imported on first use: :mod:`kg.ontology.route` (what the command line reads to
list its options) stays light, numpy and scipy load with the first ontology.

Examples
--------
>>> go = read_obo("go.obo.gz", namespaces=["BP"])                       # doctest: +SKIP
>>> facts = read_annotations("genes.gaf", evidence={"EXP", "IDA"})      # doctest: +SKIP
>>> table = term_table(go, facts, read_labels("labels.tsv"), min_support=3)  # doctest: +SKIP
"""

import importlib

_LAZY = {"read_annotations": "kg.ontology.annotations", "read_labels": "kg.ontology.annotations",
         "read_annotation_set": "kg.ontology.annotations", "NAMESPACES": "kg.ontology.obo",
         "GeneOntology": "kg.ontology.obo", "normalize_namespaces": "kg.ontology.obo", "read_obo": "kg.ontology.obo",
         "ancestor_closure": "kg.ontology.table", "term_table": "kg.ontology.table",
         "read_ontology": "kg.ontology.read", "read_facts": "kg.ontology.facts",
         "OntologyAnnotations": "kg.ontology.source"}

__all__ = ["GeneOntology", "OntologyAnnotations", "NAMESPACES", "ancestor_closure", "term_table",
           "normalize_namespaces", "read_annotation_set", "read_annotations", "read_facts", "read_labels", "read_obo",
           "read_ontology"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg.ontology' has no attribute {name!r}")
