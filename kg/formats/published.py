"""Readers for the published hierarchical-feature datasets.

- AIRE (Wan & Freitas): transposed CSVs, one row per GO term, closed under ``is_a``.
- RPV (da Silva et al.): dense ARFFs of GO terms; the hierarchy comes from an ontology.
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
from kg.hierarchy import FeatureHierarchy, binary_csr
from kg.table import FeatureTable

__all__ = [
    "aire_table",
    "fix_lod_name",
    "hierarchy_for_terms",
    "read_aire",
    "read_aire_matrix",
    "read_arff_table",
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


def _labels(values: Sequence[str]) -> np.ndarray:
    """Class values as ints when they are all integers (``"0"``/``"1"``), else strings."""
    vals = [str(v).strip() for v in values]
    if vals and all(re.fullmatch(r"-?\d+", v) for v in vals):
        return np.asarray([int(v) for v in vals], dtype=np.int64)
    return np.asarray(vals, dtype=str)


# ---------------------------------------------------------------------- hierarchies
def transitive_reduction(h: FeatureHierarchy) -> FeatureHierarchy:
    """The same DAG without edges implied by longer paths (``c -> p`` when ``p`` is reachable
    through another parent of ``c``). Node order and ``removed_edges`` are kept."""
    a = h.ancestor_matrix.astype(np.int32)
    p = h.parent_matrix.astype(np.int32)
    through = binary_csr(p @ a)  # reachable in two or more steps
    red = binary_csr(p - p.multiply(through)).tocoo()
    return FeatureHierarchy(h.node_ids, red.row, red.col, removed_edges=h.removed_edges)


def hierarchy_for_terms(
    ontology, terms: Sequence[str], *, edges: str = "nearest"
) -> tuple[FeatureHierarchy, dict]:
    """The ontology's hierarchy restricted to ``terms`` (in that order), and a report.

    ``ontology`` is a :class:`~kg.go.GeneOntology` (alternative ids are mapped to their
    primary term; obsolete terms count as missing) or a plain
    :class:`~kg.hierarchy.FeatureHierarchy`. Terms the ontology does not know become
    isolated roots, listed in ``report["missing_terms"]``. Kept terms are linked to their
    nearest kept ancestors (``FeatureHierarchy.restrict``, ``edges="nearest"``, the default:
    ancestry is preserved); ``edges="induced"`` keeps only the ontology's direct edges between
    given terms (a term whose parents are all absent becomes a root; this is how the RPV
    authors' files behave: with the 2014 GO, DM-BP then has 23 roots and 41 violating cells
    instead of 21 and 71). Only the ancestors of the given terms are closed, never the whole
    ontology.
    """
    if edges not in ("nearest", "induced"):
        raise ValueError(f"edges must be 'nearest' or 'induced', got {edges!r}")
    from kg.go import GeneOntology, ancestor_closure

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

    Returns
    -------
    X : csr_matrix, shape (n_genes, n_terms), float 0/1
    term_ids : list of str (file order)
    gene_ids : list of str (file order)
    y : ndarray of int (1 = pro-longevity)
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
    """An AIRE dataset as a FeatureTable; the hierarchy is the ontology's (``is_a``) over the
    file's terms. The README of the data says the files are closed under the 2014-06-13 GO, so
    ``meta["violations"]`` should be absent; missing terms are roots (``meta["missing_terms"]``)."""
    x, terms, genes, y = read_aire_matrix(path)
    h, report = hierarchy_for_terms(ontology, terms)
    meta = {"source": "aire", "file": Path(path).name, **report}
    if getattr(ontology, "version", None):
        meta["ontology_version"] = ontology.version
    return FeatureTable(x, terms, genes, y, h, meta=meta, check=_table_check(check))


# ---------------------------------------------------------------------- ARFF
def read_arff_table(path: str | os.PathLike):
    """Read a (dense or sparse) ARFF with liac-arff: ``(attribute list, rows)`` with rows as lists."""
    import arff  # liac-arff

    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        parts = re.split(r"^\s*@data\b", text, maxsplit=1, flags=re.M | re.I)
        sparse = len(parts) == 2 and bool(re.search(r"^\s*\{", parts[1], re.M))
        d = arff.loads(text, return_type=arff.COO if sparse else arff.DENSE)
    except arff.ArffException as exc:
        line = getattr(exc, "line", None)
        raise InputFormatError(f"not a valid ARFF file: {exc}", path, line) from exc
    attrs = d["attributes"]
    if sparse:
        vals, (r, c) = d["data"][0], d["data"][1:3]
        n = (max(r) + 1) if len(r) else 0
        rows = [[0] * len(attrs) for _ in range(n)]
        for v, i, j in zip(vals, r, c):
            rows[i][j] = v
        return attrs, rows
    return attrs, d["data"]


def _binary_columns(path: Path, rows: list, cols: list[int], names: list[str]) -> sp.csr_matrix:
    """The chosen columns as a csr 0/1 matrix; a value other than 0/1 names its instance and attribute."""
    sel = [[row[j] for j in cols] for row in rows]
    try:
        x = np.asarray(sel, dtype=np.float64).reshape(len(rows), len(cols))  # '0'/'1' strings or numbers
        ok = bool(np.all((x == 0) | (x == 1)))
    except (TypeError, ValueError):  # '?', None or a label-like string somewhere
        ok = False
    if not ok:
        for i, row in enumerate(sel):
            for k, v in enumerate(row):
                if str(v).strip() not in ("0", "1", "0.0", "1.0"):
                    raise InputFormatError(
                        f"non-binary value {v!r} in instance {i + 1}, attribute {names[k]!r}", path
                    )
        x = np.asarray([[float(str(v)) for v in row] for row in sel], dtype=np.float64).reshape(len(rows), len(cols))
    return sp.csr_matrix(x)


def read_rpv_arff(
    path: str | os.PathLike,
    ontology=None,
    *,
    check: str = "report",
    edges: str = "nearest",
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
    """
    path = Path(path)
    attrs, rows = read_arff_table(path)
    names = [a[0] for a in attrs]
    if not names:
        raise InputFormatError("no attributes", path)
    cls_name = class_attribute or names[-1]
    if cls_name not in names:
        raise InputFormatError(f"missing label column: no attribute {cls_name!r}", path)
    ci = names.index(cls_name)
    ii = names.index(id_attribute) if id_attribute in names else None
    feat = [j for j in range(len(names)) if j not in (ci, ii)]
    terms = [names[j] for j in feat]
    x = _binary_columns(path, rows, feat, terms)
    ids = [str(r[ii]) for r in rows] if ii is not None else [str(i) for i in range(len(rows))]
    if any(r[ci] is None for r in rows):
        raise InputFormatError(f"missing class value in attribute {cls_name!r}", path)
    y = _labels([r[ci] for r in rows])
    if ontology is None:
        h = FeatureHierarchy(terms, [], [])
        report: dict = {"missing_terms": [], "hierarchy": "none (flat)"}
    else:
        h, report = hierarchy_for_terms(ontology, terms, edges=edges)
        report["edges"] = edges
    meta = {"source": "rpv", "file": path.name, **report}
    if getattr(ontology, "version", None):
        meta["ontology_version"] = ontology.version
    t = FeatureTable(x, terms, ids, y, h, meta=meta, check=_table_check(check))
    if t.meta.get("violations"):
        log.info("%s: %d implication violation(s) under the given ontology", path.name, t.meta["violations"])
    return t


# ---------------------------------------------------------------------- LD (DBpedia) datasets
_REAL = re.compile(r"\{0,1\}|\{1,0\}")


def fix_lod_name(name: str) -> str:
    """Undo the defects of the LD files' names: ``{0,1}``/``{1,0}`` back to ``Real`` (a WEKA
    export replaced the substring ``Real``), ``\\%`` to ``%``, surrounding quotes/spaces."""
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
    deterministically with a warning (``report["removed_edges"]``); with ``reduce`` (default)
    implied edges are removed so that "parent" means "direct parent". Repeated lines are merged.
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
    """
    arff_path = Path(arff_path)
    attrs, rows = read_arff_table(arff_path)
    names = [a[0] for a in attrs]
    cls_name = class_attribute or names[-1]
    if cls_name not in names:
        raise InputFormatError(f"missing label column: no attribute {cls_name!r}", arff_path)
    ci = names.index(cls_name)
    feat = [j for j in range(len(names)) if j != ci]
    raw = [names[j] for j in feat]
    fixed = [fix_lod_name(n) for n in raw] if fix_names else raw
    if len(set(fixed)) != len(fixed):
        dup = next(n for n in fixed if fixed.count(n) > 1)
        raise InputFormatError(f"two attributes have the name {dup!r} after repair", arff_path)
    x = _binary_columns(arff_path, rows, feat, fixed)
    if any(r[ci] is None for r in rows):
        raise InputFormatError(f"missing class value in attribute {cls_name!r}", arff_path)
    y = _labels([r[ci] for r in rows])
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
    if not rows:
        raise KgfsError(f"{arff_path}: no instances")
    ids = [str(i) for i in range(len(rows))]
    return FeatureTable(x, fixed, ids, y, h, meta=meta, check=_table_check(check))
