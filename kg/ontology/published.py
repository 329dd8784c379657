"""Readers for the published hierarchical-feature datasets.

- AIRE (Wan & Freitas): transposed CSVs, one row per GO term, closed under ``is_a``.
- RPV (da Silva et al.): dense ARFFs of GO terms; the hierarchy comes from an ontology.
  (ARFF is read by :func:`kg.formats.arff.read_arff`, the one ARFF reader of kgfs.) The
  authors built it from a 2015 GO release that is not available; the GO of 2014-06-13 lacks
  4-46 terms of each file, which :mod:`kg.ontology.go_completion` places with the ``is_a`` edges
  of a later release (``read_rpv_arff(..., completion=...)``).
- LD (Ristoski & Paulheim, SHSEL): ARFF tables of DBpedia/YAGO types or categories plus a
  CSV that lists, for each node, its ancestors (or only its direct parents).

Every reader returns a :class:`~kg.table.FeatureTable` (or its parts) and reports in
``table.meta`` what it had to change: terms missing from the ontology, implication
violations, repaired names, self-loops, broken cycles.

About implication violations (a child feature is 1, an ancestor 0): ``check="report"``
(default) keeps the cells as they are and stores their number in ``meta["violations"]``;
``check="repair"`` adds the missing ancestors (``meta["repaired_cells"]``); ``check="raise"``
raises :class:`~kg.errors.ImplicationError`. The published files were built with
hierarchies we do not have exactly, so "report" is the faithful default: the table is the
file.

Examples
--------
>>> h = FeatureHierarchy.from_edges([("GO:2", "GO:1")])
>>> terms_h, report = hierarchy_for_terms(h, ["GO:2", "GO:1", "GO:9"])
>>> terms_h.edge_list(), report["missing_terms"]
([('GO:2', 'GO:1')], ['GO:9'])
"""

from __future__ import annotations

import csv
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError, KgfsError
from kg.formats.arff import read_arff
from kg.hierarchy import FeatureHierarchy, binary_csr
from kg.ontology.go_completion import (
    GO_ROOTS,
    complete_ontology,
    go_completion_edges,
    known_term,
    read_go_completion,
    write_go_completion,
)
from kg.ontology.obo import GeneOntology
from kg.ontology.table import ancestor_closure
from kg.table import FeatureTable

__all__ = [
    "GO_ROOTS",
    "aire_table",
    "complete_ontology",
    "go_completion_edges",
    "read_go_completion",
    "write_go_completion",
    "fix_lod_name",
    "hierarchy_for_terms",
    "read_aire",
    "read_aire_matrix",
    "read_lod",
    "read_lod_hierarchy",
    "read_rpv_arff",
    "transitive_reduction",
]

log = logging.getLogger(__name__)

_CHECK = {"report": "ignore", "ignore": "ignore", "repair": "repair", "raise": "raise"}


def _table_check(check: str) -> str:
    try:
        return _CHECK[check]
    except KeyError:
        raise ValueError(f"check must be 'report', 'repair' or 'raise', got {check!r}") from None


# ---------------------------------------------------------------------- hierarchies
def transitive_reduction(h: FeatureHierarchy) -> FeatureHierarchy:
    """The same DAG without edges implied by longer paths.

    An edge ``c -> p`` goes when ``p`` is reachable through another parent of ``c``. Node
    order and ``removed_edges`` are kept.

    Parameters
    ----------
    h : FeatureHierarchy

    Returns
    -------
    FeatureHierarchy
        Same nodes and ancestors, direct edges only.

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("c", "b"), ("b", "a"), ("c", "a")])
    >>> sorted(transitive_reduction(h).edge_list())
    [('b', 'a'), ('c', 'b')]
    """
    a = h.ancestor_matrix.astype(np.int32)
    p = h.parent_matrix.astype(np.int32)
    through = binary_csr(p @ a)  # reachable in two or more steps
    red = binary_csr(p - p.multiply(through)).tocoo()
    return FeatureHierarchy(h.node_ids, red.row, red.col, removed_edges=h.removed_edges, merged=h.merged)


def hierarchy_for_terms(
    ontology, terms: Sequence[str], *, edges: str = "nearest"
) -> tuple[FeatureHierarchy, dict]:
    """The ontology's hierarchy restricted to ``terms`` (in that order), and a report.

    ``ontology`` is a :class:`~kg.ontology.GeneOntology` (alternative ids are mapped to their
    primary term; obsolete terms count as missing) or a plain
    :class:`~kg.hierarchy.FeatureHierarchy`. Terms the ontology does not know become
    isolated roots, listed in ``report["missing_terms"]``. Kept terms are linked to their
    nearest kept ancestors (``FeatureHierarchy.restrict``, ``edges="nearest"``, the default:
    ancestry is preserved); ``edges="induced"`` keeps only the ontology's direct edges between
    given terms (a term whose parents are all absent becomes a root; this is how the RPV
    authors' files behave: with the 2014 GO, DM-BP then has 23 roots and 41 violating cells
    instead of 21 and 71). Only the ancestors of the given terms are closed, never the whole
    ontology.

    Parameters
    ----------
    ontology : GeneOntology or FeatureHierarchy
    terms : sequence of str
        The nodes of the result, in this order.
    edges : {"nearest", "induced"}

    Returns
    -------
    hierarchy : FeatureHierarchy
    report : dict
        ``missing_terms``, ``obsolete_terms``, ``alt_ids_mapped``.

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("c", "b"), ("b", "a")])
    >>> hierarchy_for_terms(h, ["c", "a"])[0].edge_list()
    [('c', 'a')]
    >>> hierarchy_for_terms(h, ["c", "a"], edges="induced")[0].n_edges
    0
    """
    if edges not in ("nearest", "induced"):
        raise ValueError(f"edges must be 'nearest' or 'induced', got {edges!r}")

    terms = [str(t) for t in terms]
    h = ontology.hierarchy if isinstance(ontology, GeneOntology) else ontology
    report: dict = {"missing_terms": [], "obsolete_terms": [], "alt_ids_mapped": {}}
    primary: list[str | None] = []
    taken: dict[str, str] = {}
    for t in terms:
        p: str | None = t if t in h.index else None
        if p is None and isinstance(ontology, GeneOntology):
            kind, value = ontology._classify(t, "drop")
            if kind == "alt":
                p = value
                report["alt_ids_mapped"][t] = value
            elif kind == "obsolete_dropped":
                report["obsolete_terms"].append(t)
        if p is not None and p in taken:
            log.warning("terms %r and %r are the same term %r; %r is kept as a root", taken[p], t, p, t)
            p = None
        if p is None:
            report["missing_terms"].append(t)
        else:
            taken[p] = t
        primary.append(p)
    known = [i for i, p in enumerate(primary) if p is not None]
    child: list[int] = []
    parent: list[int] = []
    if known:
        seeds = [h.index[primary[i]] for i in known]
        if edges == "nearest":
            up = h.restrict(np.flatnonzero(ancestor_closure(h, seeds)))  # induced, upward closed
            c, p = up.restrict([primary[i] for i in known]).edges  # nearest kept ancestors
        else:
            pm = h.parent_matrix[seeds][:, seeds].tocoo()
            c, p = pm.row.astype(np.int64), pm.col.astype(np.int64)
        pos = np.asarray(known, dtype=np.int64)
        child, parent = pos[c].tolist(), pos[p].tolist()
    out = FeatureHierarchy(terms, np.asarray(child, np.int64), np.asarray(parent, np.int64))
    return out, report


# ---------------------------------------------------------------------- AIRE
def read_aire_matrix(path: str | os.PathLike) -> tuple[sp.csr_matrix, list[str], list[str], np.ndarray]:
    """Read an AIRE transposed CSV.

    Format: first row ``is_a,<gene ids>,``; then one row per GO term ``GO:x,0/1,...,``; last
    row ``class,0/1,...,``; every row ends with a comma.

    Parameters
    ----------
    path : path

    Returns
    -------
    X : csr_matrix, shape (n_genes, n_terms), float 0/1
    term_ids : list of str (file order)
    gene_ids : list of str (file order)
    y : ndarray of int (1 = pro-longevity)

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "DM-XX.txt"
    >>> _ = p.write_text("is_a,31,32,\\nGO:1,1,1,\\nGO:2,0,1,\\nclass,1,0,\\n")
    >>> X, terms, genes, y = read_aire_matrix(p)
    >>> X.toarray().astype(int).tolist(), terms, genes, y.tolist()
    ([[1, 0], [1, 1]], ['GO:1', 'GO:2'], ['31', '32'], [1, 0])
    """
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()

    def fields(lineno: int) -> list[str]:
        row = lines[lineno - 1].rstrip().split(",")
        if row and row[-1] == "":
            row.pop()  # the trailing comma of every row
        return row

    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2:
        raise InputFormatError("an AIRE file needs a header row, term rows and a class row", path)
    head = fields(1)
    if not head or head[0].strip() != "is_a":
        raise InputFormatError(f"first row must start with 'is_a', got {head[:1]}", path, 1)
    genes = [g.strip() for g in head[1:]]
    n = len(genes)
    if len(set(genes)) != n:
        raise InputFormatError("duplicate gene id in the header row", path, 1)
    terms: list[str] = []
    rows: list[np.ndarray] = []
    y = None
    for lineno in range(2, len(lines) + 1):
        row = fields(lineno)
        name = row[0].strip()
        if len(row) - 1 != n:
            raise InputFormatError(
                f"row {name!r} has {len(row) - 1} values for {n} genes", path, lineno
            )
        try:
            vals = np.asarray(row[1:], dtype=np.int8)
        except ValueError:
            bad = next(v for v in row[1:] if v.strip() not in ("0", "1"))
            raise InputFormatError(f"non-binary value {bad!r} in row {name!r}", path, lineno) from None
        if vals.size and (vals.min() < 0 or vals.max() > 1):
            raise InputFormatError(f"non-binary value in row {name!r} (values must be 0/1)", path, lineno)
        if name == "class":
            if lineno != len(lines):
                raise InputFormatError("the 'class' row must be the last row", path, lineno)
            y = vals.astype(np.int64)
        else:
            terms.append(name)
            rows.append(vals)
    if y is None:
        raise InputFormatError("missing label column: no 'class' row", path, len(lines))
    if len(set(terms)) != len(terms):
        dup = next(t for t in terms if terms.count(t) > 1)
        raise InputFormatError(f"duplicate term row {dup!r}", path)
    dense_t = np.vstack(rows) if rows else np.zeros((0, n), np.int8)  # terms x genes, small blocks
    x = sp.csr_matrix(dense_t.T, dtype=np.float64)
    return x, terms, genes, y


read_aire = read_aire_matrix  #: alias: the parts (X, term_ids, gene_ids, y) of an AIRE file


def aire_table(path: str | os.PathLike, ontology, *, check: str = "report") -> FeatureTable:
    """An AIRE dataset as a FeatureTable; the hierarchy is the ontology's over the file's terms.

    The README of the data says the files are closed under the 2014-06-13 GO, so
    ``meta["violations"]`` should be absent.

    Parameters
    ----------
    path : path
        An AIRE file (see :func:`read_aire_matrix`).
    ontology : GeneOntology or FeatureHierarchy
        Restricted to the file's terms by :func:`hierarchy_for_terms`; missing terms are
        roots (``meta["missing_terms"]``).
    check : {"report", "repair", "raise"}
        Implication violations (see the module docstring).

    Returns
    -------
    FeatureTable

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "DM-XX.txt"
    >>> _ = p.write_text("is_a,31,32,\\nGO:1,1,1,\\nGO:2,0,1,\\nclass,1,0,\\n")
    >>> t = aire_table(p, FeatureHierarchy.from_edges([("GO:2", "GO:1")]))
    >>> t.hierarchy.edge_list(), t.meta["missing_terms"], "violations" in t.meta
    ([('GO:2', 'GO:1')], [], False)
    """
    x, terms, genes, y = read_aire_matrix(path)
    h, report = hierarchy_for_terms(ontology, terms)
    meta = {"source": "aire", "file": Path(path).name, **report, **_ontology_meta(ontology, terms)}
    return FeatureTable(x, terms, genes, y, h, meta=meta, check=_table_check(check))


def _ontology_meta(ontology, terms) -> dict:
    """The ontology's release and the names of ``terms`` (for reports), when the ontology has them."""
    meta: dict = {}
    if getattr(ontology, "version", None):
        meta["ontology_version"] = ontology.version
    names = getattr(ontology, "names", None)
    if names:
        meta["term_names"] = {str(f): names.get(str(f), "") for f in terms}
    return meta


# ---------------------------------------------------------------------- RPV
def read_rpv_arff(
    path: str | os.PathLike,
    ontology=None,
    *,
    check: str = "report",
    edges: str = "nearest",
    completion=None,
    drop_terms: Sequence[str] = (),
    id_attribute: str = "entrez",
    class_attribute: str | None = None,
) -> FeatureTable:
    """Read an RPV dataset (dense ARFF: ``entrez`` id, binary ``GO:`` features, last ``class``).

    Parameters
    ----------
    ontology : GeneOntology or FeatureHierarchy, optional
        The hierarchy is its ``is_a`` DAG restricted to the file's terms (nearest kept
        ancestors). Terms it lacks become roots, listed in ``meta["missing_terms"]``
        (obsolete ones also in ``meta["obsolete_terms"]``). Without an ontology the features
        are flat (no edges).
    check : {"report", "repair", "raise"}
        Implication violations under this hierarchy: counted in ``meta["violations"]``
        (default), closed (``meta["repaired_cells"]``), or raised.
    edges : {"nearest", "induced"}
        How the ontology is restricted to the file's terms; see :func:`hierarchy_for_terms`.
    completion : path or sequence of (child, parent), optional
        Edges of a later GO release that place terms ``ontology`` lacks (a file written by
        :func:`write_go_completion`, or the pairs); added with :func:`complete_ontology`
        (``meta["completion"]`` counts them and the terms they placed).
    drop_terms : sequence of str
        Columns left out (e.g. :data:`GO_ROOTS`, as the authors' code does); those present
        are listed in ``meta["dropped_terms"]``.
    id_attribute : str
        The attribute of the gene ids (if the file has none, the first ``STRING``
        attribute, else row numbers).
    class_attribute : str, optional
        Default: the last attribute.

    Returns
    -------
    FeatureTable
        ``meta`` holds ``missing_terms`` and, with ``check="report"``, ``violations``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "DM-XX-threshold-3.arff"
    >>> _ = p.write_text("@relation 'DM - XX'\\n@attribute entrez string\\n@attribute GO:2 {0,1}\\n"
    ...                  "@attribute GO:1 {0,1}\\n@attribute class {0,1}\\n@data\\n31,1,0,1\\n32,0,1,0\\n")
    >>> t = read_rpv_arff(p, FeatureHierarchy.from_edges([("GO:2", "GO:1")]))
    >>> t.instance_ids.tolist(), t.meta["violations"], read_rpv_arff(p, check="repair").hierarchy.n_edges
    (['31', '32'], 1, 0)
    >>> t = read_rpv_arff(p, FeatureHierarchy.from_edges([("GO:2", "GO:0")]), completion=[("GO:0", "GO:1")],
    ...                   drop_terms=["GO:0"])
    >>> t.hierarchy.edge_list(), t.meta["completion"]["placed_terms"], t.meta["dropped_terms"]
    ([('GO:2', 'GO:1')], ['GO:1'], [])
    """
    path = Path(path)
    a = read_arff(path, class_attribute=-1 if class_attribute is None else class_attribute, id_attribute=id_attribute)
    terms = a.feature_names.tolist()
    X = a.X
    drop = set(drop_terms)
    dropped = [t for t in terms if t in drop]
    if dropped:
        keep = [i for i, t in enumerate(terms) if t not in drop]
        terms, X = [terms[i] for i in keep], sp.csr_matrix(X)[:, keep]
    added: dict = {}
    if ontology is not None and completion is not None:
        pairs = read_go_completion(completion) if isinstance(completion, (str, os.PathLike)) else list(completion)
        before = {t for t in terms if known_term(ontology, t) is None}
        ontology = complete_ontology(ontology, pairs, label="completion")
        added = {"edges": len(pairs), "placed_terms": sorted(t for t in before if known_term(ontology, t) is not None)}
        if isinstance(completion, (str, os.PathLike)):
            added["file"] = Path(completion).name
    if ontology is None:
        h = FeatureHierarchy(terms, [], [])
        report: dict = {"missing_terms": [], "hierarchy": "none (flat)"}
    else:
        h, report = hierarchy_for_terms(ontology, terms, edges=edges)
        report["edges"] = edges
    meta = {"source": "rpv", "file": path.name, **report, "dropped_terms": dropped}
    if added:
        meta["completion"] = added
    meta.update(_ontology_meta(ontology, terms))
    t = FeatureTable(X, terms, a.instance_ids, a.y, h, meta=meta, check=_table_check(check))
    if t.meta.get("violations"):
        log.info("%s: %d implication violation(s) under the given ontology", path.name, t.meta["violations"])
    return t


# ---------------------------------------------------------------------- LD (DBpedia) datasets
_REAL = re.compile(r"\{0,1\}|\{1,0\}")


def fix_lod_name(name: str) -> str:
    """Undo the defects of the LD files' names.

    ``{0,1}``/``{1,0}`` go back to ``Real`` (a WEKA export replaced the substring ``Real``),
    ``\\%`` to ``%`` (the hierarchy CSVs keep ARFF's escape), surrounding quotes and spaces go.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> fix_lod_name(' "http://dbpedia.org/class/yago/ParticipantsInAmerican{0,1}ityTelevisionSeries" ')
    'http://dbpedia.org/class/yago/ParticipantsInAmericanRealityTelevisionSeries'
    """
    name = name.strip().strip('"').strip()
    return _REAL.sub("Real", name).replace("\\%", "%")


def _split_csv_line(line: str) -> list[str]:
    """Fields of one LD hierarchy line: quoted names keep their commas; an unquoted name that
    contains a comma (``...County,_South_Carolina``) is rejoined: in the IRI files every field
    starts with ``http``, so a piece that does not is the rest of the previous field."""
    fields = next(csv.reader([line], skipinitialspace=True))
    fields = [f for f in fields]
    while fields and not fields[-1].strip():
        fields.pop()
    if fields and fields[0].strip().startswith("http"):
        merged: list[str] = []
        for f in fields:
            if merged and f and not f.strip().startswith("http"):
                merged[-1] = merged[-1] + "," + f
            else:
                merged.append(f)
        fields = merged
    return [f.strip() for f in fields if f.strip()]


def read_lod_hierarchy(
    path: str | os.PathLike, *, fix_names: bool = True, reduce: bool = True
) -> tuple[FeatureHierarchy, dict]:
    """Read an LD hierarchy CSV: each line is a node followed by its ancestors (type files:
    the full ancestor closure; ``SportsTweetsc``: direct ``skos:broader`` parents only).

    Self-loops are dropped and counted; cycles (category graphs have them) are broken
    deterministically with a warning (``report["removed_edges"]``). Repeated lines are merged.

    Parameters
    ----------
    path : path
    fix_names : bool
        Repair the names with :func:`fix_lod_name`.
    reduce : bool
        Remove implied edges (:func:`transitive_reduction`), so that "parent" means "direct parent".

    Returns
    -------
    hierarchy : FeatureHierarchy
    report : dict
        ``hierarchy_file``, ``self_loops``, ``removed_edges``, ``renamed_names``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "h.csv"
    >>> _ = p.write_text("http://x/Athlete,http://x/Person,http://x/Agent,,\\nhttp://x/Person,http://x/Agent,,,\\n")
    >>> h, report = read_lod_hierarchy(p)
    >>> h.edge_list(), report["self_loops"]
    ([('http://x/Athlete', 'http://x/Person'), ('http://x/Person', 'http://x/Agent')], 0)
    """
    path = Path(path)
    edges: list[tuple[str, str]] = []
    nodes: list[str] = []
    seen: set[str] = set()
    self_loops = 0
    renamed = 0
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                fields = _split_csv_line(line.rstrip("\r\n"))
            except csv.Error as exc:
                raise InputFormatError(f"unreadable CSV line ({exc})", path, lineno) from exc
            if not fields:
                continue
            if fix_names:
                fixed = [fix_lod_name(f) for f in fields]
                renamed += sum(a != b for a, b in zip(fixed, fields))
                fields = fixed
            node = fields[0]
            if node not in seen:
                seen.add(node)
                nodes.append(node)
            for anc in fields[1:]:
                if anc == node:
                    self_loops += 1
                    continue
                edges.append((node, anc))
    if not nodes:
        raise InputFormatError("empty hierarchy file", path)
    h = FeatureHierarchy.from_edges(edges, nodes=nodes, on_cycle="break")  # warns, naming the edges
    if reduce:
        h = transitive_reduction(h)
    report = {
        "hierarchy_file": path.name,
        "self_loops": self_loops,
        "removed_edges": [list(e) for e in h.removed_edges],
        "renamed_names": renamed,
    }
    return h, report


def read_lod(
    arff_path: str | os.PathLike,
    hierarchy_csv_path: str | os.PathLike,
    *,
    check: str = "report",
    fix_names: bool = True,
    class_attribute: str | None = None,
) -> FeatureTable:
    """An LD dataset: the ARFF table with the hierarchy of its CSV restricted to its features.

    Names are repaired with :func:`fix_lod_name` on both sides (``fix_names``); features the
    CSV does not know become roots (``meta["missing_terms"]``). The class is the last
    attribute (``Label``, ``GI_value``, ``label``) unless ``class_attribute`` names another;
    instance ids are row numbers (the files have none). The files have 12-15 cells where a
    child is 1 and an ancestor 0: see the module docstring for ``check``.

    Parameters
    ----------
    arff_path : path
        The table (``LD*.arff``).
    hierarchy_csv_path : path
        The hierarchy (see :func:`read_lod_hierarchy`).
    check : {"report", "repair", "raise"}
    fix_names : bool
    class_attribute : str, optional

    Returns
    -------
    FeatureTable
        ``meta`` holds ``renamed_features`` (file name -> repaired name), ``missing_terms``
        and the hierarchy's report.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "h.csv").write_text("http://x/Athlete,http://x/Person,,\\n")
    >>> _ = (d / "t.arff").write_text("@relation LDx\\n@attribute http://x/Athlete {0,1}\\n"
    ...                               "@attribute http://x/Person {0,1}\\n@attribute label {0,1}\\n"
    ...                               "@data\\n1,1,1\\n0,0,0\\n")
    >>> t = read_lod(d / "t.arff", d / "h.csv")
    >>> t.instance_ids.tolist(), t.hierarchy.edge_list(), t.y.tolist()
    (['0', '1'], [('http://x/Athlete', 'http://x/Person')], [1, 0])
    """
    arff_path = Path(arff_path)
    a = read_arff(arff_path, class_attribute=-1 if class_attribute is None else class_attribute)
    if not a.X.shape[0]:
        raise KgfsError(f"{arff_path}: no instances")
    raw = a.feature_names.tolist()
    fixed = [fix_lod_name(n) for n in raw] if fix_names else raw
    if len(set(fixed)) != len(fixed):
        dup = next(n for n in fixed if fixed.count(n) > 1)
        raise InputFormatError(f"two attributes have the name {dup!r} after repair", arff_path)
    full, hreport = read_lod_hierarchy(hierarchy_csv_path, fix_names=fix_names)
    h, treport = hierarchy_for_terms(full, fixed)
    meta = {
        "source": "lod",
        "file": arff_path.name,
        "renamed_features": {a: b for a, b in zip(raw, fixed) if a != b},
        **hreport,
        **{k: v for k, v in treport.items() if v},
        "missing_terms": treport["missing_terms"],
    }
    return FeatureTable(a.X, fixed, a.instance_ids, a.y, h, meta=meta, check=_table_check(check))


# ---------------------------------------------------------------------- the dataset registry's loaders
def load_aire(paths, *, check="report", relations=("is_a",)):
    """An AIRE table with its ontology (:data:`kg.datasets.LOADERS` ``aire``)."""
    from kg.ontology.datasets import read_ontology_cached

    return aire_table(paths["table"], read_ontology_cached(paths["ontology"], relations), check=check)


def load_rpv(paths, *, check="report", edges="nearest", relations=("is_a",), drop_terms=()):
    """An RPV ARFF with its ontology and completion (:data:`kg.datasets.LOADERS` ``rpv``)."""
    from kg.ontology.datasets import read_ontology_cached

    go = read_ontology_cached(paths["ontology"], relations) if "ontology" in paths else None
    return read_rpv_arff(paths["table"], go, check=check, edges=edges,
                         completion=paths.get("completion"), drop_terms=tuple(drop_terms))


def load_lod(paths, *, check="report", fix_names=True):
    """A LOD table with its hierarchy (:data:`kg.datasets.LOADERS` ``lod``)."""
    return read_lod(paths["table"], paths["hierarchy"], check=check, fix_names=fix_names)


def load_lod_hierarchy(paths, **options):
    """A LOD hierarchy alone, without a table (:data:`kg.datasets.LOADERS` ``lod_hierarchy``)."""
    return read_lod_hierarchy(paths["hierarchy"], **options)[0]
