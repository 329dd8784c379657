"""The GO route's table: annotations resolved against an ontology, closed upward, labelled.

``term_table`` resolves the annotated terms (alternative ids, obsolete terms, unknown ids,
other namespaces), closes every gene's terms under the ontology's relations and returns a
:class:`~kg.table.FeatureTable` whose ``meta`` reports what was changed or dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from kg.errors import KgfsError, UnknownFeatureError, param
from kg.hierarchy import FeatureHierarchy
from kg.ontology.annotations import AnnotationSet
from kg.ontology.formats import instance_noun
from kg.ontology.obo import _ON_OBSOLETE, GeneOntology
from kg.sparse import distinct
from kg.table import FeatureTable

__all__ = ["ancestor_closure", "term_table"]

log = logging.getLogger(__name__)


def ancestor_closure(hierarchy: FeatureHierarchy, seeds: Iterable[int]) -> np.ndarray:
    """Boolean mask of ``seeds`` and all their ancestors (frontier expansion, no full closure).

    Cheaper than ``hierarchy.ancestor_matrix`` when only a few nodes are needed: one sparse
    row gather per level of the DAG.

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    seeds : iterable of int
        Node indices.

    Returns
    -------
    ndarray of bool, shape (n_nodes,)

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("c", "b"), ("b", "a"), ("d", "a")])
    >>> h.node_ids[ancestor_closure(h, [h.index["c"]])].tolist()
    ['a', 'b', 'c']
    """
    mask = np.zeros(hierarchy.n_nodes, dtype=bool)
    frontier = distinct(np.asarray(list(seeds), dtype=np.int64))
    mask[frontier] = True
    pm = hierarchy.parent_matrix
    while frontier.size:
        parents = distinct(pm[frontier].indices)
        frontier = parents[~mask[parents]]
        mask[frontier] = True
    return mask


def _resolve(
    ontology: GeneOntology, genes: list[str], annotations: Mapping[str, Iterable[str]], unknown: str,
    on_obsolete: str, keep_unannotated: bool,
) -> tuple[dict[str, list[str]], dict]:
    """Each gene's annotated terms as live terms of the ontology, and what was mapped or dropped."""
    cache: dict[str, tuple[str, str | None]] = {}
    unknown_terms: dict[str, str] = {}
    other_ns: set[str] = set()
    alt_mapped: dict[str, str] = {}
    replaced: dict[str, str] = {}
    obs_dropped: set[str] = set()
    facts: dict[str, list[str]] = {}
    for g in genes:
        resolved: list[str] = []
        for t in annotations.get(g, ()):
            t = str(t).strip()
            res = cache.get(t)
            if res is None:
                res = cache[t] = ontology._classify(t, on_obsolete)
            kind, value = res
            if kind in ("ok", "alt", "replaced"):
                resolved.append(value)
                if kind == "alt":
                    alt_mapped[t] = value
                elif kind == "replaced":
                    replaced[t] = value
            elif kind == "obsolete_dropped":
                obs_dropped.add(t)
            elif kind == "other_namespace":
                other_ns.add(t)
            elif kind == "obsolete":
                raise UnknownFeatureError(f"{value} (gene {g!r})")
            elif unknown == "raise":
                raise UnknownFeatureError(f"{value} (gene {g!r}); {param('unknown', 'drop')} drops such terms")
            else:
                unknown_terms.setdefault(t, g)
        if resolved or keep_unannotated:
            facts[g] = resolved
    return facts, {
        "unknown_terms": sorted(unknown_terms),
        "other_namespace_terms": len(other_ns),
        "alt_ids_mapped": dict(sorted(alt_mapped.items())),
        "replaced_terms": dict(sorted(replaced.items())),
        "obsolete_dropped": sorted(obs_dropped),
    }


def _not_conflicts(ontology: GeneOntology, facts: Mapping[str, list[str]], negative: Mapping[str, Iterable[str]],
                   on_obsolete: str) -> dict:
    """Instances annotated with a term and with ``NOT`` of it or of one of its ancestors (in the chosen hierarchy)."""
    h = ontology.hierarchy
    cache: dict[str, str | None] = {}
    n_instances = 0
    examples: list[str] = []
    n_negated = 0
    for inst, terms in negative.items():
        n_negated += len(terms)
        pos = facts.get(inst)
        if not pos:
            continue
        neg = []
        for t in terms:
            if t not in cache:
                kind, value = ontology._classify(str(t).strip(), "replace" if on_obsolete == "replace" else "drop")
                cache[t] = value if kind in ("ok", "alt", "replaced") else None
            if cache[t] is not None:
                neg.append((t, h.index[cache[t]]))
        if not neg:
            continue
        mask = ancestor_closure(h, [h.index[t] for t in pos])
        hit = [t for t, j in neg if mask[j]]
        if hit:
            n_instances += 1
            if len(examples) < 5:
                examples.append(f"{inst}: NOT {hit[0]}, yet annotated with it or a descendant")
    return {"negated_annotations": n_negated, "not_conflict_instances": n_instances, "not_conflict_examples": examples}


def term_table(
    ontology: GeneOntology,
    annotations: Mapping[str, Iterable[str]] | AnnotationSet,
    labels: Mapping[str, object] | None = None,
    *,
    min_support: int = 1,
    unknown: str = "raise",
    on_obsolete: str = "raise",
    keep_unannotated: bool = False,
    meta: dict | None = None,
) -> FeatureTable:
    """Build the binary gene x GO-term table: resolve the terms, close them upward.

    Parameters
    ----------
    ontology : GeneOntology
    annotations : mapping of gene -> iterable of term ids, or AnnotationSet
        The direct annotations (from :func:`read_annotations`), or all that
        :func:`~kg.ontology.annotations.read_annotation_set` read: then the ``NOT`` annotations are checked
        against the positive ones (``meta["not_conflict_instances"]``: instances annotated with a term
        and with ``NOT`` of it or of an ancestor; a warning names one), the reading's counts go into
        ``meta["annotation_report"]`` (instances skipped while reading count as unlabelled) and its
        ``label_terms`` never become features.
    labels : mapping of gene -> label, optional
        When given, the table holds the labelled genes (in annotation order); annotated genes
        without a label are left out (counted in ``meta["unlabelled_genes"]``).
    min_support : int
        Drop terms present in fewer genes (the papers use 3).
    unknown : {"raise", "drop"}
        A term id that is not in the ontology at all raises
        :class:`~kg.errors.UnknownFeatureError`, or is dropped and listed.
    on_obsolete : {"raise", "replace", "drop"}
        See :meth:`GeneOntology.resolve`.
    keep_unannotated : bool
        Keep labelled genes whose annotations are all dropped (or that have none) as empty
        rows. Default: leave them out and list them in ``meta["unannotated_genes"]``.

    Notes
    -----
    Terms of namespaces the ontology was not read with are always dropped (a GAF holds all
    three aspects; reading BP only means "use the BP annotations") and counted in
    ``meta["other_namespace_terms"]``. Alternative ids are mapped to their primary id
    (``meta["alt_ids_mapped"]``), obsolete ids replaced (``meta["replaced_terms"]``: old ->
    new) or dropped (``meta["obsolete_dropped"]``). The closure only touches the ancestors of
    the terms used, so it does not pay for the whole ontology. ``meta["term_names"]`` maps
    every feature of the table to its GO term name; ``meta["instance_noun"]`` is what the instances are called
    (their annotation format's :attr:`~kg.ontology.formats.base.AnnotationFormat.instance_noun`: hpoa's are
    diseases; annotations given as a mapping are genes), for the notes and reports.

    Returns
    -------
    FeatureTable
        Genes x the used terms and all their ancestors, closed upward.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "go.obo"
    >>> _ = p.write_text("[Term]\\nid: GO:1\\nname: process\\n\\n[Term]\\nid: GO:2\\nname: ageing\\nis_a: GO:1\\n"
    ...                  "alt_id: GO:3\\n")
    >>> from kg.ontology.obo import read_obo
    >>> t = term_table(read_obo(p), {"g1": ["GO:3"], "g2": ["GO:1"]}, {"g1": "pro", "g2": "anti"})
    >>> t.feature_names.tolist(), t.X.toarray().astype(int).tolist(), t.meta["alt_ids_mapped"]
    (['GO:1', 'GO:2'], [[1, 1], [1, 0]], {'GO:3': 'GO:2'})
    """
    if unknown not in ("raise", "drop"):
        raise ValueError(f"unknown must be 'raise' or 'drop', got {unknown!r}")
    if on_obsolete not in _ON_OBSOLETE:
        raise ValueError(f"on_obsolete must be one of {_ON_OBSOLETE}, got {on_obsolete!r}")
    read = annotations if isinstance(annotations, AnnotationSet) else None
    if read is not None:
        annotations = read.positive
        if read.label_terms:
            drop = set(read.label_terms)
            annotations = {g: [t for t in ts if t not in drop] for g, ts in annotations.items()}
    skipped = int(read.report.get("skipped_instances", 0)) if read is not None else 0
    noun = instance_noun(read.report.get("format") if read is not None else None)  # for the notes and reports
    genes = list(annotations)
    if labels is not None:
        labelled = [g for g in genes if g in labels]
        unlabelled = len(genes) - len(labelled) + skipped
        genes = labelled + [g for g in labels if g not in annotations]
    else:
        unlabelled = 0
    facts, resolution = _resolve(ontology, genes, annotations, unknown, on_obsolete, keep_unannotated)
    if not facts:
        raise KgfsError(
            f"no {noun} has a usable annotation"
            + (f" ({resolution['other_namespace_terms']} term(s) are in other namespaces)"
               if resolution["other_namespace_terms"] else "")
        )
    h = ontology.hierarchy
    used = {h.index[t] for ts in facts.values() for t in ts}
    sub = h.restrict(np.flatnonzero(ancestor_closure(h, used)))  # upward closed: no closure of all of GO
    m = dict(meta or {})
    m.update(
        {
            "source": "go",
            "ontology": Path(ontology.path).name if ontology.path else "",
            "ontology_version": ontology.version,
            "relations": list(ontology.relations),
            "namespaces": list(ontology.namespaces) if ontology.namespaces else "all",
            "n_annotated_genes": len(annotations) + skipped,
            **resolution,
            "unannotated_genes": [g for g in genes if g not in facts],
            "unlabelled_genes": unlabelled,
            "instance_noun": noun,
        }
    )
    if read is not None:
        m["annotation_report"] = dict(read.report)
        m.update(_not_conflicts(ontology, facts, read.negative, on_obsolete))
        if m["not_conflict_instances"]:
            log.warning("%d instance(s) are annotated with a term and with NOT of it or of an ancestor, e.g. %s",
                        m["not_conflict_instances"], m["not_conflict_examples"][0])
        if ontology.roots:
            m["roots"] = list(ontology.roots)
    for key, what in (("unknown_terms", "unknown"), ("obsolete_dropped", "obsolete dropped")):
        if m[key]:
            log.warning("%d %s term(s), e.g. %s", len(m[key]), what, m[key][0])
    table = FeatureTable.from_facts(
        facts,
        sub,
        None if labels is None else {g: labels[g] for g in facts},
        min_support=min_support,
        unknown="raise",
        meta=m,
    )
    if read is not None and read.label_terms:  # a label term that is an ancestor of a feature: still never a feature
        bad = [f for f in table.feature_names.tolist() if f in set(read.label_terms)]
        if bad:
            table = table.select_features(~np.isin(table.feature_names, bad))
            table.meta["label_terms_dropped"] = bad
    # the terms' names, for reports (selected_features.csv, the Prefect artifacts)
    table.meta["term_names"] = {f: ontology.names.get(f, "") for f in table.feature_names.tolist()}
    return table
