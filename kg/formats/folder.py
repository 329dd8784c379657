"""A table as a folder: ``table.npz`` + ``summary.json`` (``kgfs build``), and its export files.

- :func:`write_table_folder` / :func:`read_table_folder`: kgfs's own format (the table in
  ``table.npz``, a readable ``summary.json`` beside it), what ``kgfs build`` and ``kgfs select``
  write and ``kgfs select/evaluate/export --table`` read.
- :func:`read_user_table`: a user's own table (ARFF or CSV, with an optional ``child,parent``
  hierarchy file) as a :class:`~kg.table.FeatureTable` (``kgfs build --arff/--csv``).
- :func:`export_table`: the files a person or WEKA reads: ARFF (dense, and sparse), CSV, and the
  hierarchy's ``child,parent`` edges CSV; :func:`export_selected` the same for the table reduced
  to some features.

Examples
--------
>>> import tempfile
>>> from kg.hierarchy import FeatureHierarchy
>>> from kg.table import FeatureTable
>>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
>>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
>>> d = tempfile.mkdtemp()
>>> write_table_folder(t, d)["n_features"], read_table_folder(d).shape
(2, (2, 2))
>>> sorted(export_table(t, d))
['arff', 'arff_sparse', 'csv', 'edges']
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kg.errors import ImplicationError, InputFormatError, KgfsError, few, param
from kg.files import atomic_write
from kg.formats import read_arff, read_csv, read_edges_csv, write_arff, write_csv, write_edges_csv
from kg.formats.csv_io import first_line_naming, is_label_header, utf8_error, write_sparse_csv
from kg.hierarchy import FeatureHierarchy
from kg.store.records import write_json
from kg.table import FeatureTable

__all__ = ["DENSE_LIMIT", "TABLE_FILES", "copy_table_folder", "dense_exports", "export_file", "export_selected",
           "export_table", "read_table_folder", "read_user_table", "table_notes",
           "table_summary", "write_table_folder"]

# the meta entries of a table that report a problem of its input (``kgfs build`` prints them)
NOTE_KEYS = ("unknown_terms", "unknown_features", "violations", "repaired_cells", "obsolete_dropped", "replaced_terms",
             "unannotated_genes", "unlabelled_genes", "instances_without_entities", "instances_without_features",
             "hierarchy_unknown_nodes", "removed_cycle_edges", "merged_cycles", "entities_without_link",
             "types_without_link", "entities_without_features")


def table_summary(table: FeatureTable) -> dict:
    """Sizes, class counts and the meta's reports (lists and dicts by their length) of a table.

    Parameters
    ----------
    table : FeatureTable

    Returns
    -------
    dict
        ``n_instances``, ``n_features``, ``n_edges``, ``nnz``, ``classes`` (when labelled), ``meta``
        (its lists by their length; the first five items of each reported list under ``examples``).

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
    >>> s = table_summary(t)
    >>> s["n_instances"], s["n_edges"], s["nnz"], s["classes"]
    (2, 1, 3, {'0': 1, '1': 1})
    """
    out = {"n_instances": int(table.n_instances), "n_features": int(table.n_features),
           "n_edges": int(table.hierarchy.n_edges), "nnz": int(table.X.nnz)}
    if table.y is not None:
        vals, counts = np.unique(table.y.astype(str), return_counts=True)
        out["classes"] = {str(v): int(c) for v, c in zip(vals.tolist(), counts.tolist())}
    meta = dict(table.meta)
    if table.hierarchy.removed_edges and not meta.get("removed_cycle_edges"):  # cycles broken, whatever the route
        meta["removed_cycle_edges"] = [list(e) for e in table.hierarchy.removed_edges]
    if table.hierarchy.merged and not meta.get("merged_cycles"):  # cycles merged, whatever the route
        meta["merged_cycles"] = {k: list(v) for k, v in table.hierarchy.merged.items()}
    out["meta"] = {k: (len(v) if isinstance(v, (list, dict)) else v) for k, v in meta.items()}
    examples = {k: [" -> ".join(map(str, x)) if isinstance(x, (list, tuple)) else str(x) for x in list(v)[:5]]
                for k, v in meta.items() if k in NOTE_KEYS and isinstance(v, (list, dict)) and v}
    empty = np.flatnonzero(np.diff(table.X.tocsr().indptr) == 0)
    if len(empty) and table.meta.get("instances_without_features"):  # counted by the route: named from the rows
        examples["instances_without_features"] = [str(table.instance_ids[i]) for i in empty[:5]]
    if examples:  # a few of what each note counts, for the console
        out["meta"]["examples"] = examples
    return out


def table_notes(summary: dict) -> dict:
    """The non-empty problem reports of a :func:`table_summary` (its meta's :data:`NOTE_KEYS`).

    Parameters
    ----------
    summary : dict

    Returns
    -------
    dict

    Examples
    --------
    >>> table_notes({"meta": {"repaired_cells": 3, "violations": 0, "dataset": "d"}})
    {'repaired_cells': 3}
    """
    return {k: v for k, v in summary.get("meta", {}).items() if k in NOTE_KEYS and v}


def write_table_folder(table: FeatureTable, out: str | os.PathLike) -> dict:
    """Write ``out/table.npz`` and ``out/summary.json`` (each atomically); returns the summary.

    Parameters
    ----------
    table : FeatureTable
    out : str or os.PathLike
        The folder (created when missing).

    Returns
    -------
    dict
        :func:`table_summary` plus ``dataset`` (``table.meta["dataset"]``).

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> t = FeatureTable.from_facts({"a": ["x"]}, FeatureHierarchy.from_edges([], nodes=["x"]),
    ...                             meta={"dataset": "d"})
    >>> write_table_folder(t, tempfile.mkdtemp())["dataset"]
    'd'
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table.save(out / "table.npz")
    removed = table.meta.get("removed_cycle_edges")
    if removed:  # every edge removed to break a cycle of the hierarchy, beside the table (the note names a few)
        text = "child\tparent\n" + "".join(f"{c}\t{p}\n" for c, p in removed)
        atomic_write(out / REMOVED_EDGES, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    else:  # not an earlier table's
        (out / REMOVED_EDGES).unlink(missing_ok=True)
    summary = table_summary(table)
    summary["dataset"] = table.meta.get("dataset")
    write_json(out / "summary.json", summary)
    return summary


#: The edges a table's meta lists as removed to break cycles (:func:`write_table_folder`), one per line.
REMOVED_EDGES = "removed_cycle_edges.tsv"
#: The files of a table folder (:func:`write_table_folder`): the table, its summary, the edges its meta lists.
TABLE_FILES = ("table.npz", "summary.json", REMOVED_EDGES)


def copy_table_folder(folder: str | os.PathLike, out: str | os.PathLike) -> dict:
    """Copy a folder :func:`write_table_folder` wrote (a stored table step's) to ``out``, each file atomically;
    returns its summary. What :func:`write_table_folder` of its table writes, without reading and writing the
    table again (a table of 2.1M features: 10 s).

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> t = FeatureTable.from_facts({"a": ["x"]}, FeatureHierarchy.from_edges([], nodes=["x"]),
    ...                             meta={"dataset": "d"})
    >>> d = tempfile.mkdtemp()
    >>> out = Path(tempfile.mkdtemp())
    >>> write_table_folder(t, d) == copy_table_folder(d, out), read_table_folder(out).shape
    (True, (1, 1))
    """
    folder, out = Path(folder), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in TABLE_FILES:
        if (folder / name).is_file():
            atomic_write(out / name, lambda tmp, src=folder / name: shutil.copyfile(src, tmp))
        elif name == REMOVED_EDGES:  # the table lists none: not an earlier table's
            (out / name).unlink(missing_ok=True)
        else:
            raise KgfsError(f"{folder / name}: missing (not a folder written by write_table_folder)")
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def read_table_folder(path: str | os.PathLike) -> FeatureTable:
    """The table of a folder written by :func:`write_table_folder`, or of a ``.npz`` file.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    FeatureTable

    Raises
    ------
    KgfsError
        When there is no ``table.npz``.

    Examples
    --------
    >>> read_table_folder("/no/such/folder")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: /no/such/folder: no such table (expected a folder written by `kgfs build --out`, ...)
    """
    p = Path(path)
    if p.is_dir():
        p = p / "table.npz"
    if not p.is_file():
        raise KgfsError(f"{p}: no such table (expected a folder written by `kgfs build --out`, holding table.npz)")
    return FeatureTable.load(p)


_CHECKS = {"repair": "repair", "report": "ignore", "raise": "raise"}


def _csv_has_label(path: Path) -> bool:
    with open(path, "rb") as fh:
        first = fh.readline()
    try:
        header = next(csv.reader([first.decode("utf-8")]), [])
    except UnicodeDecodeError:
        raise utf8_error(path) from None
    return bool(header) and is_label_header(header[-1])


def read_user_table(path: str | os.PathLike, *, fmt: str | None = None, hierarchy: str | os.PathLike | None = None,
                    check: str = "repair", name: str | None = None, drop_unknown: bool = False) -> FeatureTable:
    """A user's own binary table, ARFF or CSV, over a hierarchy given as a ``child,parent`` edges CSV.

    Parameters
    ----------
    path : str or os.PathLike
        ARFF (dense or sparse, :func:`kg.formats.read_arff`) or CSV (first column the instance
        id, then one 0/1 column per feature, last the class when its header is ``label`` or
        ``class``; :func:`kg.formats.read_csv`).
    fmt : {"arff", "csv"}, optional
        Default: from the file's suffix (``.arff``, else CSV).
    hierarchy : str or os.PathLike, optional
        ``child,parent`` edges (:func:`kg.formats.read_edges_csv`); every feature must be a node, and
        every node a feature (see ``drop_unknown``). Default: no edges.
    check : {"repair", "report", "raise"}
        Cells that violate the hierarchy (child 1, parent 0): closed upward, kept (counted in
        the meta) or an error.
    name : str, optional
        The dataset name (default: the file name without suffix).
    drop_unknown : bool
        A node of the hierarchy that is not a column of the table (a misspelt or missing feature)
        is an error naming the hierarchy file, its line and the node; with ``drop_unknown`` such
        nodes are dropped (the ancestry through them kept) and counted (``meta["hierarchy_unknown_nodes"]``).

    Returns
    -------
    FeatureTable

    Raises
    ------
    InputFormatError
        Naming the file, line or feature at fault.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.csv").write_text("id,Athlete,Person,label\\na,1,0,1\\nb,0,1,0\\n")
    >>> _ = (d / "h.csv").write_text("child,parent\\nAthlete,Person\\nPerson,Agent\\n")
    >>> try:
    ...     read_user_table(d / "t.csv", hierarchy=d / "h.csv")
    ... except InputFormatError as e:
    ...     print(str(e).split(str(d) + "/")[1][:53])
    h.csv:3: 'Agent' is not a feature (a column) of t.csv
    >>> t = read_user_table(d / "t.csv", hierarchy=d / "h.csv", drop_unknown=True)
    >>> t.X.toarray().astype(int).tolist(), t.meta["repaired_cells"], t.meta["hierarchy_unknown_nodes"]
    ([[1, 1], [0, 1]], 1, ['Agent'])
    """
    p = Path(path)
    fmt = fmt or ("arff" if p.suffix.lower() == ".arff" else "csv")
    if fmt == "arff":
        a = read_arff(p)
        ids, names, X, y = a.instance_ids, a.feature_names, a.X, a.y
    else:
        ids, names, X, y = read_csv(p, has_label=_csv_has_label(p))
    if hierarchy is None:
        h = FeatureHierarchy(names, [], [])
    else:
        h = read_edges_csv(hierarchy)
        missing = [f for f in names.tolist() if f not in h.index]
        if missing:
            raise InputFormatError(f"{len(missing)} feature(s) of {p} are not nodes of the hierarchy "
                                   f"({param('hierarchy')}), "
                                   f"e.g. {', '.join(repr(m) for m in missing[:3])}", hierarchy)
        columns = set(names.tolist())
        unknown = [n for n in h.node_ids.tolist() if n not in columns]
        if unknown and not drop_unknown:
            line, node = first_line_naming(hierarchy, set(unknown))
            more = f" ({len(unknown)} such nodes: {few(sorted(unknown), 5)})" if len(unknown) > 1 else ""
            raise InputFormatError(f"{node!r} is not a feature (a column) of {p.name}{more}; pass drop_unknown=True to "
                                   "drop such nodes", hierarchy, line)
        h = h.restrict(names.tolist())
    if check not in _CHECKS:
        raise ValueError(f"check must be one of {sorted(_CHECKS)}, got {check!r}")
    meta = {"dataset": name or p.stem, "source": fmt, "file": p.name}
    if hierarchy is not None and unknown:
        meta["hierarchy_unknown_nodes"] = sorted(unknown)
    try:
        return FeatureTable(X, names, ids, y, h, meta=meta, check=_CHECKS[check])
    except ImplicationError as exc:
        raise InputFormatError(str(exc).split("; pass")[0] + f" ({param('check', 'repair')} closes them upward)",
                               p) from None


#: Dense exports (``table.arff``, ``table.csv``: one value per instance x feature) are written for tables of at most
#: this many cells unless asked for (2 million cells: about 4 MB each); larger tables get the sparse forms only.
DENSE_LIMIT = 2_000_000


def dense_exports(table: FeatureTable, dense: bool | None = None) -> bool:
    """Whether the dense files are written: ``dense`` when given, else for a table of at most :data:`DENSE_LIMIT` cells.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> dense_exports(SimpleNamespace(shape=(127, 699))), dense_exports(SimpleNamespace(shape=(10_000, 4_850)))
    (True, False)
    >>> dense_exports(SimpleNamespace(shape=(10_000, 4_850)), dense=True)
    True
    """
    if dense is not None:
        return bool(dense)
    n, m = table.shape
    return n * m <= DENSE_LIMIT


def export_table(table: FeatureTable, out: str | os.PathLike, *, sparse_arff: bool = True,
                 dense: bool | None = None) -> dict[str, str]:
    """Write the table's exports and ``hierarchy.csv`` into ``out``: dense files only when the table is small or
    they are asked for, the sparse ARFF otherwise.

    Dense (:func:`dense_exports`): ``table.arff`` and ``table.csv``, one 0/1 value per instance x feature
    (a 10,000 x 4,850 table: 97 MB each). ``table.sparse.arff`` (WEKA's sparse ARFF: the 1-cells only) when
    ``sparse_arff`` or when the dense files are not written. The table itself is ``table.npz``
    (:func:`write_table_folder`); ``kgfs export --format csv --sparse`` writes a sparse CSV of it.

    Parameters
    ----------
    table : FeatureTable
    out : str or os.PathLike
        The folder.
    sparse_arff : bool
        Write the WEKA sparse ARFF beside the dense files.
    dense : bool, optional
        Write the dense files (``True``), never (``False``), or when the table has at most
        :data:`DENSE_LIMIT` cells (``None``, the default).

    Returns
    -------
    dict
        Role (``arff``, ``arff_sparse``, ``csv``, ``edges``) -> file name.

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> t = FeatureTable.from_facts({"a": ["x"]}, FeatureHierarchy.from_edges([], nodes=["x"]), labels={"a": 1})
    >>> export_table(t, tempfile.mkdtemp(), sparse_arff=False)
    {'arff': 'table.arff', 'csv': 'table.csv', 'edges': 'hierarchy.csv'}
    >>> export_table(t, tempfile.mkdtemp(), sparse_arff=False, dense=False)
    {'arff_sparse': 'table.sparse.arff', 'edges': 'hierarchy.csv'}
    """
    out = Path(out)
    files: dict[str, str] = {}
    small = dense_exports(table, dense)
    if small:
        files["arff"] = "table.arff"
        write_arff(table, out / files["arff"], sparse=False)
    if sparse_arff or not small:
        files["arff_sparse"] = "table.sparse.arff"
        write_arff(table, out / files["arff_sparse"], sparse=True)
    if small:
        files["csv"] = "table.csv"
        write_csv(table, out / files["csv"])
    files["edges"] = "hierarchy.csv"
    write_edges_csv(table.hierarchy, out / files["edges"])
    return files





def export_selected(table: FeatureTable, features: Sequence[str], out: str | os.PathLike, *,
                    sparse_arff: bool = True) -> tuple[dict[str, str], int]:
    """The table reduced to ``features``: ``table.selected.arff`` and its ``hierarchy.selected.csv``.

    Parameters
    ----------
    table : FeatureTable
    features : sequence of str
        Feature ids to keep (kept in the table's order).
    out : str or os.PathLike
    sparse_arff : bool
        Write the ARFF in WEKA's sparse format.

    Returns
    -------
    files : dict
        Role (``arff_selected``, ``edges_selected``) -> file name.
    n_features : int
        Features of the reduced table.

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
    >>> export_selected(t, ["Person"], tempfile.mkdtemp())[1]
    1
    """
    out = Path(out)
    reduced = table.select_features(list(features))
    files = {"arff_selected": "table.selected.arff", "edges_selected": "hierarchy.selected.csv"}
    write_arff(reduced, out / files["arff_selected"], sparse=sparse_arff)
    write_edges_csv(reduced.hierarchy, out / files["edges_selected"])
    return files, int(reduced.n_features)


def export_file(table: FeatureTable, fmt: str, path: str | os.PathLike, *, sparse: bool = False,
                relation: str | None = None, id_attribute: str | None = None) -> str:
    """Write one export file: ``arff`` or ``csv`` (dense or ``sparse``), or the hierarchy's ``edges``.

    Parameters
    ----------
    table : FeatureTable
    fmt : {"arff", "csv", "edges"}
    path : str or os.PathLike
    sparse : bool
        WEKA's sparse ARFF; a CSV of ``instance_id,label,feature`` rows (:func:`kg.formats.csv_io.write_sparse_csv`).
    relation, id_attribute
        ARFF options (:func:`kg.formats.write_arff`).

    Returns
    -------
    str
        What was written, e.g. ``"2 x 2 table as arff (sparse)"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kg.hierarchy import FeatureHierarchy
    >>> t = FeatureTable.from_facts({"a": ["x"]}, FeatureHierarchy.from_edges([], nodes=["x"]), labels={"a": 1})
    >>> export_file(t, "edges", pathlib.Path(tempfile.mkdtemp()) / "e.csv")
    'hierarchy edges as edges'
    """
    if fmt == "arff":
        write_arff(table, path, sparse=sparse, relation=relation, id_attribute=id_attribute)
    elif fmt == "csv":
        if sparse:
            write_sparse_csv(table, path)
        else:
            write_csv(table, path)
    elif fmt == "edges":
        write_edges_csv(table.hierarchy, path)
    else:
        raise ValueError(f"unknown export format {fmt!r} (arff, csv or edges)")
    what = "hierarchy edges" if fmt == "edges" else f"{table.n_instances} x {table.n_features} table"
    return f"{what} as {fmt}{' (sparse)' if fmt in ('arff', 'csv') and sparse else ''}"
