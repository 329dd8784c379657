"""Completing an older Gene Ontology release with the ``is_a`` edges of a later one.

The RPV datasets (da Silva, Plastino & Freitas 2020) were built with a 2015 GO release that is
not available; the release of 2014-06-13 lacks 4-46 terms of each file. A later release (GO
2022-07-01, as the tables of Bioconductor's ``GO.db``) places most of them:
:func:`go_completion_edges` finds the edges needed, :func:`complete_ontology` adds them, and
:func:`write_go_completion` / :func:`read_go_completion` keep them as a small file (the registry
ships one for the ``rpv/*`` datasets). :func:`kg.ontology.published.read_rpv_arff` applies it
(``completion=``).

Examples
--------
>>> old = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
>>> complete_ontology(old, [("GO:9", "GO:1")]).edge_list()
[('GO:2', 'GO:1'), ('GO:9', 'GO:1')]
"""

from __future__ import annotations

import csv
import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from kg.errors import CycleError, InputFormatError
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy

__all__ = ["GO_ROOTS", "complete_ontology", "go_completion_edges", "known_term", "read_go_completion",
           "write_go_completion"]


#: The roots of the three GO namespaces (BP, MF, CC). The RPV authors' code drops these
#: columns when it loads a dataset (``DataUtils.loadDataSetWithoutSupportAttributes``).
GO_ROOTS = ("GO:0008150", "GO:0003674", "GO:0005575")


def known_term(ontology, term: str) -> str | None:
    """The live id ``ontology`` places ``term`` at (alternative ids mapped), else None.

    Parameters
    ----------
    ontology : GeneOntology or FeatureHierarchy
    term : str

    Returns
    -------
    str or None

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
    >>> known_term(h, "GO:2"), known_term(FeatureHierarchy([], [], []), "x")
    ('GO:2', None)
    """
    h = ontology.hierarchy if hasattr(ontology, "alt_ids") else ontology
    if term in h.index:
        return term
    alt = getattr(ontology, "alt_ids", {}).get(term)
    return alt if alt is not None and alt in h.index else None


def _read_go_table(path: str | os.PathLike) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def go_completion_edges(
    ontology, terms: Iterable[str], parents_tsv: str | os.PathLike, *, obsolete_tsv: str | os.PathLike | None = None,
    relationship: str = "isa",
) -> tuple[list[tuple[str, str]], dict]:
    """The ``is_a`` edges of a later GO release that place the ``terms`` an older ontology lacks.

    The later release is given as the tables of Bioconductor's ``GO.db`` (``go_parents.tsv``:
    columns ``child``, ``parent``, ``relationship_type``; ``go_obsolete.tsv``: ``go_id``).
    Its ``is_a`` edges with an end the older ontology does not know (after mapping the older
    release's alternative ids) are added to the older DAG; walking up from ``terms`` in that
    union, every added edge met is returned. They suffice to restrict the union to any set
    of the terms (:func:`complete_ontology`, :func:`hierarchy_for_terms`), nearest ancestors
    included. Edges between two terms the older release knows are never taken from the later
    one: the older release stays the hierarchy, the later one only places what it lacks.

    Parameters
    ----------
    ontology : GeneOntology or FeatureHierarchy
        The older release.
    terms : iterable of str
        The terms to place (a dataset's features).
    parents_tsv : path
        The later release's child -> parent table.
    obsolete_tsv : path, optional
        Its obsolete terms (only to say why a term stays unplaced).
    relationship : str, default "isa"
        The ``relationship_type`` taken.

    Returns
    -------
    edges : list of (child, parent)
        Sorted.
    report : dict
        ``placed``: the terms the older release lacks that the edges place; ``unplaced``:
        term -> why not (obsolete in the later release, or absent from its tables: merged
        into another term, whose ``alt_id`` the tables do not carry).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.tsv").write_text("child\\tparent\\trelationship_type\\n"
    ...                              "GO:9\\tGO:1\\tisa\\nGO:2\\tGO:9\\tisa\\nGO:7\\tGO:1\\tpart of\\n")
    >>> old = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
    >>> go_completion_edges(old, ["GO:9", "GO:2", "GO:8"], d / "p.tsv")
    ([('GO:2', 'GO:9'), ('GO:9', 'GO:1')], {'placed': ['GO:9'], 'unplaced': {'GO:8': 'not in the later tables'}})
    """
    h = ontology.hierarchy if hasattr(ontology, "alt_ids") else ontology
    later: dict[str, list[str]] = {}
    for row in _read_go_table(parents_tsv):
        if row.get("relationship_type") != relationship:
            continue
        c, p = row["child"], row["parent"]
        pc, pp = known_term(ontology, c), known_term(ontology, p)
        if pc is None or pp is None:  # an end the older release lacks
            later.setdefault(pc or c, []).append(pp or p)
    obsolete = {r["go_id"] for r in _read_go_table(obsolete_tsv)} if obsolete_tsv else set()
    pm = h.parent_matrix
    wanted = [str(t) for t in terms]
    stack = [known_term(ontology, t) or t for t in wanted]
    seen: set[str] = set()
    used: set[tuple[str, str]] = set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        for p in later.get(x, ()):
            used.add((x, p))
            stack.append(p)
        if x in h.index:
            i = h.index[x]
            stack.extend(h.node_ids[pm.indices[pm.indptr[i] : pm.indptr[i + 1]]].tolist())
    lacking = sorted({t for t in wanted if known_term(ontology, t) is None})
    children = {c for c, _ in used}
    placed = [t for t in lacking if t in children]
    unplaced = {t: ("obsolete in the later release" if t in obsolete else "not in the later tables")
                for t in lacking if t not in children}
    return sorted(used), {"placed": placed, "unplaced": unplaced}


def complete_ontology(ontology, edges: Iterable[tuple[str, str]], *, label: str = "completed"):
    """``ontology`` with extra ``(child, parent)`` edges (and the new terms they name).

    Ends that are alternative ids of the ontology are mapped to their primary terms. A cycle
    the extra edges close is broken deterministically (logged), as
    :meth:`FeatureHierarchy.from_edges` does.

    Parameters
    ----------
    ontology : GeneOntology or FeatureHierarchy
    edges : iterable of (child, parent)
        E.g. :func:`go_completion_edges` or :func:`read_go_completion`.
    label : str
        Appended to a GeneOntology's ``version`` (``"2014-06-13+label"``).

    Returns
    -------
    GeneOntology or FeatureHierarchy
        The same kind as ``ontology``; the input is not changed.

    Examples
    --------
    >>> old = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
    >>> complete_ontology(old, [("GO:9", "GO:1"), ("GO:2", "GO:9")]).edge_list()
    [('GO:2', 'GO:1'), ('GO:2', 'GO:9'), ('GO:9', 'GO:1')]
    """
    is_go = hasattr(ontology, "alt_ids")
    h = ontology.hierarchy if is_go else ontology
    pairs = [(known_term(ontology, c) or c, known_term(ontology, p) or p) for c, p in edges]
    new = sorted({x for e in pairs for x in e if x not in h.index})
    ids = h.node_ids.tolist() + new
    index = {**h.index, **{t: len(h.node_ids) + i for i, t in enumerate(new)}}
    child, parent = h.edges
    extra_c = np.asarray([index[c] for c, _ in pairs], dtype=np.int64)
    extra_p = np.asarray([index[p] for _, p in pairs], dtype=np.int64)
    try:
        union = FeatureHierarchy(ids, np.concatenate([child, extra_c]), np.concatenate([parent, extra_p]),
                                 merged=h.merged)
    except CycleError:  # broken, not merged: the completed ontology keeps its terms (a published table's columns)
        union = FeatureHierarchy.from_edges(h.edge_list() + pairs, nodes=ids, on_cycle="break")
        union = FeatureHierarchy(union.node_ids, *union.edges, removed_edges=union.removed_edges, merged=h.merged)
    if not is_go:
        return union
    return dataclasses.replace(ontology, hierarchy=union, version=f"{ontology.version}+{label}")


_COMPLETION_HEADER = ("child", "parent")


def read_go_completion(path: str | os.PathLike) -> list[tuple[str, str]]:
    """The ``(child, parent)`` edges of a completion file (:func:`write_go_completion`).

    Parameters
    ----------
    path : path
        Tab-separated ``child``, ``parent``; lines starting with ``#`` are comments.

    Returns
    -------
    list of (child, parent)

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> write_go_completion(p, [("GO:9", "GO:1")], ["from a later release"])
    >>> read_go_completion(p)
    [('GO:9', 'GO:1')]
    """
    out: list[tuple[str, str]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise InputFormatError(f"expected 2 tab-separated fields, got {len(fields)}", path, lineno)
            if tuple(fields) != _COMPLETION_HEADER:
                out.append((fields[0], fields[1]))
    return out


def write_go_completion(path: str | os.PathLike, edges: Iterable[tuple[str, str]], comments: Sequence[str]) -> None:
    """Write completion edges as :func:`read_go_completion` reads them (atomically).

    Parameters
    ----------
    path : path
    edges : iterable of (child, parent)
    comments : sequence of str
        Lines written first, each after ``# `` (where the edges come from).

    Returns
    -------
    None

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> write_go_completion(p, [("GO:9", "GO:1")], ["GO 2022-07-01 is_a"])
    >>> p.read_text().splitlines()
    ['# GO 2022-07-01 is_a', 'child\\tparent', 'GO:9\\tGO:1']
    """
    lines = [f"# {c}" for c in comments] + ["\t".join(_COMPLETION_HEADER)] + [f"{c}\t{p}" for c, p in edges]
    text = "\n".join(lines) + "\n"
    atomic_write(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))
