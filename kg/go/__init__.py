"""The Gene Ontology route: ontology (OBO), gene annotations (GAF or tables), labels, and the table.

Genes are instances, GO terms features; a gene has a term when it is annotated with it or with
one of its descendants (the ``is_a`` closure, optionally more relations).

- :mod:`kg.go.obo`: the ontology (:func:`read_obo`, :class:`GeneOntology`).
- :mod:`kg.go.annotations`: gene -> direct terms (GAF 2.x or two-column tables) and labels.
- :mod:`kg.go.table`: the closed, labelled :class:`~kg.table.FeatureTable`.

Examples
--------
>>> go = read_obo("go.obo.gz", namespaces=["BP"])                       # doctest: +SKIP
>>> facts = read_annotations("genes.gaf", evidence={"EXP", "IDA"})      # doctest: +SKIP
>>> table = build_table(go, facts, read_labels("labels.tsv"), min_support=3)  # doctest: +SKIP
"""

from kg.go.annotations import read_annotations, read_labels
from kg.go.obo import NAMESPACES, GeneOntology, normalize_namespaces, read_obo
from kg.go.table import ancestor_closure, build_table

__all__ = ["GeneOntology", "NAMESPACES", "ancestor_closure", "build_table", "normalize_namespaces",
           "read_annotations", "read_labels", "read_obo"]
