"""The Gene Ontology route: ontology (OBO), gene annotations (GAF or tables), labels, and the table.

Genes are instances, GO terms features; a gene has a term when it is annotated with it or with
one of its descendants (the ``is_a`` closure, optionally more relations).
"""

from kg.go.obo import (
    NAMESPACES,
    GeneOntology,
    ancestor_closure,
    build_table,
    normalize_namespaces,
    read_annotations,
    read_labels,
    read_obo,
)

__all__ = ["GeneOntology", "NAMESPACES", "ancestor_closure", "build_table", "normalize_namespaces",
           "read_annotations", "read_labels", "read_obo"]
