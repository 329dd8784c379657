"""An ontology and an annotation file as a knowledge source: the genes' terms and the terms' parents.

:class:`OntologyAnnotations` answers the questions of :class:`kg.sources.KnowledgeSource`
(``types``, ``class_edges``, ``categories``, ``broader``) from an ontology read by
:func:`kg.ontology.read.read_ontology` (OBO, OWL, GO.db-style tables) and annotations read by
:func:`kg.ontology.annotations.read_annotation_set` (GAF, GPAD, hpoa, two-column tables), so that
:class:`kg.features.KGFeatures` builds gene x GO-term tables by the same code path as DBpedia's
entity x type tables. Instances are plain ids (gene ids, disease ids), not IRIs.

The files are read on the first question (never in the constructor), once.

Examples
--------
>>> src = OntologyAnnotations("datasets/bundled/DM-BP/go-2014-06-13-subset.obo.gz",
...                           "datasets/bundled/DM-BP/annotations.tsv")   # doctest: +SKIP
>>> src.types(["31957"])["31957"]                                          # doctest: +SKIP
{'GO:0006464', 'GO:0008340', ...}
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from kg.errors import UnknownFeatureError
from kg.ontology.formats import chosen_format
from kg.sources import breadth_first_edges

__all__ = ["OntologyAnnotations"]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class OntologyAnnotations:
    """Instances annotated with the terms of an ontology, as a knowledge source.

    Parameters
    ----------
    ontology : path-like
        OBO, OWL or a child -> parent table (plain or ``.gz``), see :func:`kg.ontology.read.read_ontology`.
    annotations : path-like
        GAF 2.x, GPAD, HPO ``phenotype.hpoa`` or a two-column ``instance<TAB>term`` table.
    relations : sequence of str
        Ontology relations that become edges (default ``("is_a",)``).
    namespaces : str or sequence of str, optional
        GO namespaces to keep (``"BP"``); terms of others are dropped from the annotations.
    evidence : sequence of str, optional
        Evidence codes to keep.
    on_obsolete : {"replace", "drop"}
        Obsolete terms in the annotations: replaced by their ``replaced_by`` term, or dropped.
        Unknown term ids are always dropped (and counted in :attr:`report`).
    roots : str or sequence of str, optional
        Keep the sub-ontology under these terms (``HP:0000118``).
    annotation_format : str
        ``"auto"`` (detected) or a registered annotation format (:data:`kg.ontology.formats.ANNOTATION_FORMATS`).

    Attributes
    ----------
    report : dict
        After the first question: ``dropped_terms`` (annotated term ids that are unknown,
        obsolete without replacement or of another namespace) and the annotation reader's counts.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "o.obo").write_text("[Term]\\nid: X:1\\nname: root\\n\\n[Term]\\nid: X:2\\nname: leaf\\nis_a: X:1\\n")
    >>> _ = (d / "a.tsv").write_text("gene\\tterm\\ng1\\tX:2\\ng2\\tX:1\\n")
    >>> src = OntologyAnnotations(d / "o.obo", d / "a.tsv")
    >>> src.types(["g1", "g3"]), sorted(src.class_edges(["X:2"])), src.labels(["X:2"])
    ({'g1': {'X:2'}, 'g3': set()}, [('X:2', 'X:1')], {'X:2': 'leaf'})
    """

    #: Instances are plain ids: :class:`kg.features.KGFeatures` does not read them as IRIs.
    entity_iris = False

    def __init__(self, ontology, annotations, *, relations: Sequence[str] = ("is_a",), namespaces=None,
                 evidence: Sequence[str] | None = None, on_obsolete: str = "replace", roots=None,
                 annotation_format: str = "auto"):
        if on_obsolete not in ("replace", "drop"):
            raise ValueError(f"on_obsolete must be 'replace' or 'drop', got {on_obsolete!r}")
        self.ontology = Path(ontology)
        self.annotations = Path(annotations)
        self.relations = tuple(relations)
        self.namespaces = namespaces
        self.evidence = None if evidence is None else tuple(evidence)
        self.on_obsolete = on_obsolete
        self.roots = roots
        self.annotation_format = annotation_format
        self.report: dict = {}
        self._onto = None
        self._facts: dict[str, set[str]] | None = None

    def __repr__(self) -> str:
        return f"OntologyAnnotations({str(self.ontology)!r}, {str(self.annotations)!r})"

    # ------------------------------------------------------------------ reading (once, on first use)
    def _load(self):
        if self._onto is not None:
            return self._onto
        from kg.ontology.annotations import AnnotationOptions, read_annotation_set
        from kg.ontology.read import read_ontology

        for path, what in ((self.ontology, "ontology"), (self.annotations, "annotations")):
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such {what} file")
        onto = read_ontology(self.ontology, relations=self.relations, namespaces=self.namespaces, roots=self.roots)
        read = read_annotation_set(self.annotations, AnnotationOptions(format=self.annotation_format,
                                                                          evidence=self.evidence))
        facts: dict[str, set[str]] = {}
        dropped: set[str] = set()
        resolved: dict[str, str | None] = {}
        for inst, terms in read.positive.items():
            out = facts.setdefault(str(inst), set())
            for t in terms:
                if t not in resolved:
                    try:
                        resolved[t] = onto.resolve(t, self.on_obsolete)
                    except UnknownFeatureError:
                        resolved[t] = None
                if resolved[t] is None:
                    dropped.add(t)
                else:
                    out.add(resolved[t])
        self.report = {"dropped_terms": sorted(dropped), "annotation_report": dict(read.report)}
        self._facts = facts
        self._onto = onto
        return onto

    # ------------------------------------------------------------------ KnowledgeSource
    def types(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The live terms each instance is annotated with (empty for an instance the file lacks).

        Parameters
        ----------
        entities : iterable of str

        Returns
        -------
        dict of str -> set of str
        """
        self._load()
        return {e: set(self._facts.get(e, ())) for e in entities}

    def categories(self, entities: Iterable[str]) -> dict[str, set[str]]:
        """The same as :meth:`types` (an ontology has one kind of term)."""
        return self.types(entities)

    def _parents(self, nodes: list[str]) -> dict[str, set[str]]:
        h = self._load().hierarchy
        pm = h.parent_matrix
        out = {}
        for n in nodes:
            j = h.column_index.get(n)  # a member of a merged cycle: its term's parents
            out[n] = set() if j is None else set(h.node_ids[pm[j].indices].tolist())
        return out

    def class_edges(self, classes: Iterable[str]) -> set[tuple[str, str]]:
        """Every edge of the chosen relations above the terms (all their ancestors' edges).

        Parameters
        ----------
        classes : iterable of str

        Returns
        -------
        set of (child, parent)
        """
        from kg.ontology.table import ancestor_closure

        h = self._load().hierarchy
        col = h.column_index  # a member of a merged cycle: its term
        seeds = [col[c] for c in set(classes) if c in col]
        if not seeds:
            return set()
        mask = ancestor_closure(h, seeds)
        c, p = h.edges
        keep = mask[c]
        ids = h.node_ids
        return set(zip(ids[c[keep]].tolist(), ids[p[keep]].tolist()))

    def broader(self, categories: Iterable[str], depth: int | None) -> set[tuple[str, str]]:
        """The edges met walking up at most ``depth`` levels from the terms (``None``: all of them).

        Parameters
        ----------
        categories : iterable of str
        depth : int or None

        Returns
        -------
        set of (child, parent)
        """
        return breadth_first_edges(categories, self._parents, depth)

    def labels(self, terms: Iterable[str]) -> dict[str, str]:
        """The terms' names (``""`` when the ontology has none).

        Parameters
        ----------
        terms : iterable of str

        Returns
        -------
        dict of str -> str
        """
        names = self._load().names
        return {t: names.get(t, "") for t in terms}

    def describe(self) -> dict:
        """Provenance: the files (with their sha256), relations, namespaces, roots.

        Returns
        -------
        dict
        """
        return {"kind": "ontology", "ontology": str(self.ontology), "ontology_sha256": _sha256(self.ontology),
                "annotations": str(self.annotations), "annotations_sha256": _sha256(self.annotations),
                "relations": list(self.relations), "namespaces": self.namespaces, "roots": self.roots,
                "evidence": self.evidence, "on_obsolete": self.on_obsolete,
                **({"annotation_format": fmt} if (fmt := chosen_format(self.annotation_format)) else {})}

