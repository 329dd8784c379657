"""CSV files of a :class:`~kg.table.FeatureTable` and of a hierarchy's edges.

- Table CSV: first column the instance id, then one 0/1 column per feature named by its id
  (GO id or IRI), last the label (column ``label``; absent when the table has no labels).
- Sparse table CSV (:func:`write_sparse_csv`, ``kgfs export --format csv --sparse``):
  ``instance_id,label,feature``, one row per 1-cell (the size of the data, not of instances x features).
- Edges CSV: columns ``child,parent``, one row per edge, in node order; a node without
  parents gets one row with an empty parent, so the node set and its order survive the
  round trip (:func:`read_edges_csv`).

All files are UTF-8 and written atomically (a crash leaves the old file or none).

Examples
--------
>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
>>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
>>> print(write_csv(t, d / "t.csv").read_text(), end="")
instance_id,Athlete,Person,label
a,1,1,1
b,0,1,0
>>> print(write_edges_csv(h, d / "h.csv").read_text(), end="")
child,parent
Athlete,Person
Person,
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy
from kg.table import FeatureTable

__all__ = ["LABEL_HEADERS", "check_utf8", "first_line_naming", "is_label_header", "read_csv", "read_edges_csv",
           "table_csv_header", "unlabelled_text", "utf8_error", "write_csv", "write_edges_csv", "write_sparse_csv"]

_ROWS_PER_CHUNK = 512  # rows densified at a time when writing


def _open_bytes(path: str | os.PathLike):
    """``(compressed, binary file)``: the file's bytes, decompressed when its magic bytes say gzip, bzip2 or xz."""
    import bz2
    import gzip
    import lzma

    with open(path, "rb") as fh:
        magic = fh.read(6)
    for head, opener in ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open)):
        if magic.startswith(head):
            return True, opener(path, "rb")
    return False, open(path, "rb")


def utf8_error(path: str | os.PathLike, hint: str = "save it as UTF-8") -> InputFormatError:
    """The error for a text file that is not UTF-8, naming its first undecodable byte: its line, column and offset.

    Parameters
    ----------
    path : str or os.PathLike
        Plain or compressed (gzip, bzip2, xz: detected by its magic bytes; the offset is then one of the
        decompressed text).
    hint : str
        What the user can do, appended to the message.

    Returns
    -------
    InputFormatError

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_bytes(b"id,a\\nx\\xff,1\\n")
    >>> str(utf8_error(p)).split(": ", 1)[1]
    'not UTF-8 (byte 0xff at column 2, byte offset 6 of the file); save it as UTF-8'
    """
    zipped, opened = _open_bytes(path)
    offset = 0
    with opened as fh:
        for ln, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                of = "decompressed text" if zipped else "file"
                return InputFormatError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}, byte "
                                        f"offset {offset + exc.start} of the {of}); {hint}", path, ln)
            offset += len(raw)
    return InputFormatError(f"not UTF-8; {hint}", path)


#: The header of a table CSV's last column when it holds the class (case and spaces aside).
LABEL_HEADERS = ("label", "class")


def is_label_header(name: str) -> bool:
    """Whether a table CSV's last column named ``name`` holds the class (:data:`LABEL_HEADERS`)."""
    return name.strip().lower() in LABEL_HEADERS


def check_utf8(path: str | os.PathLike, hint: str = "save it as UTF-8") -> None:
    """Raise :func:`utf8_error` when the file (plain or compressed) is not UTF-8: read in blocks, nothing parsed,
    so a run can refuse it before any work (146 MB in 0.3 s here, half the time of reading its lines as text).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.tsv"
    >>> _ = p.write_bytes("gene\\tlabel\\nFBgn1\\tpro-longévité\\n".encode("latin-1"))
    >>> check_utf8(p)
    Traceback (most recent call last):
    ...
    kg.errors.InputFormatError: ...labels.tsv:2: not UTF-8 (byte 0xe9 at column 15, byte offset 25 of the file); ...
    """
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    with _open_bytes(path)[1] as fh:
        try:
            while block := fh.read(1 << 20):
                decoder.decode(block)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise utf8_error(path, hint) from None


def table_csv_header(path: str | os.PathLike) -> tuple[list[str], bool]:
    """The header of a table CSV and whether its last column is the class, the whole file checked to be UTF-8 first
    (:func:`check_utf8`); no row is parsed (the up-front check of a run).

    Returns
    -------
    header : list of str
    labelled : bool
        The last column's header is ``label`` or ``class``.

    Raises
    ------
    InputFormatError
        Not UTF-8 (naming the line, column and byte offset), empty, or a header of fewer than two columns.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("id,GO:1,GO:2,Class\\ng1,1,0,pro\\n")
    >>> table_csv_header(p)
    (['id', 'GO:1', 'GO:2', 'Class'], True)
    """
    path = Path(path)
    check_utf8(path)
    with open(path, encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh), None)
    if not header:
        raise InputFormatError("empty CSV file (expected a header: id, one column per feature, then label or class)",
                               path, 1)
    if len(header) < 2:
        raise InputFormatError(f"the header has {len(header)} column ({header[0]!r}); expected id, one column per "
                               "feature, then label or class", path, 1)
    return header, is_label_header(header[-1])


def unlabelled_text(path: str | os.PathLike, header: list[str]) -> str:
    """What to say of a table CSV without a class column: the file, the header expected, the columns found.

    Examples
    --------
    >>> unlabelled_text("t.csv", ["id", "a", "b", "kind"])
    "t.csv: no class column: the last column's header is 'kind', not 'label' or 'class' (the columns: id, a, b, kind)"
    """
    shown = ", ".join(header) if len(header) <= 8 else ", ".join([*header[:4], "...", *header[-3:]]) + \
        f" ({len(header)} in all)"
    return (f"{path}: no class column: the last column's header is {header[-1]!r}, not "
            f"{' or '.join(map(repr, LABEL_HEADERS))} (the columns: {shown})")


class _CsvWriter:
    """``csv.writer`` with ``\n`` line ends that also quotes fields holding a ``\r``.

    The csv module quotes only the characters of its line terminator, so a bare ``\r`` in an
    id or a name would otherwise end the record for a reader; such rows are written fully quoted.
    """

    def __init__(self, fh):
        self._min = csv.writer(fh, lineterminator="\n")
        self._all = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, row) -> None:
        if any(isinstance(v, str) and "\r" in v for v in row):
            self._all.writerow(row)
        else:
            self._min.writerow(row)


def write_csv(table: FeatureTable, path: str | os.PathLike, *, label_column: str = "label",
              id_column: str = "instance_id") -> Path:
    """Write ``table`` as a dense 0/1 CSV (its counts, when it has them): id column, one column per feature, then the
    label.

    Columns are named by feature id (GO id or IRI) and quoted by the ``csv`` module where
    needed. Rows are written a few hundred at a time (the table is never densified whole).

    Parameters
    ----------
    table : FeatureTable
    path : path
    label_column : str
        Name of the last column (written only when the table has labels).
    id_column : str
        Name of the first column.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> h = FeatureHierarchy.from_edges([("a,b", "c")])
    >>> t = FeatureTable.from_facts({"i1": ["a,b"]}, h)
    >>> print(write_csv(t, pathlib.Path(tempfile.mkdtemp()) / "t.csv").read_text(), end="")
    instance_id,"a,b",c
    i1,1,1
    """
    path = Path(path)
    X = table.X if table.values is None else table.values
    kind = np.int8 if table.values is None else _cell_type(table.values)
    names = table.feature_names.tolist()
    y = None if table.y is None else [str(v) for v in table.y.tolist()]
    ids = table.instance_ids.tolist()

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = _CsvWriter(fh)
            w.writerow([id_column, *names, *([label_column] if y is not None else [])])
            for start in range(0, X.shape[0], _ROWS_PER_CHUNK):
                block = X[start:start + _ROWS_PER_CHUNK].toarray().astype(kind)
                for k, row in enumerate(block.tolist()):
                    i = start + k
                    w.writerow([ids[i], *row, *([y[i]] if y is not None else [])])

    atomic_write(path, write)
    return path


def write_sparse_csv(table: FeatureTable, path: str | os.PathLike) -> Path:
    """Write ``table`` as ``instance_id,label,feature`` rows, one per instance and feature it has (long format);
    a table with counts gets a ``value`` column.

    The file grows with the table's 1-cells, not with instances x features. An instance without
    any feature gets one row with an empty ``feature``, so every instance and its label are in the
    file; an unlabelled table has no ``label`` column. Instances in table order, features in column order.

    Parameters
    ----------
    table : FeatureTable
    path : path

    Returns
    -------
    Path

    Examples
    --------
    >>> import pathlib, tempfile
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": []}, h, labels={"a": 1, "b": 0})
    >>> print(write_sparse_csv(t, pathlib.Path(tempfile.mkdtemp()) / "t.csv").read_text(), end="")
    instance_id,label,feature
    a,1,Athlete
    a,1,Person
    b,0,
    """
    path = Path(path)
    X = sp.csr_matrix(table.X)
    X.sort_indices()
    counts_of = None
    if table.values is not None:  # laid out as X (kg.table): the same cells in the same order
        kind = _cell_type(table.values)
        counts_of = [str(kind(v).item()) for v in table.values.data.tolist()]
    ids = [_field(i) for i in table.instance_ids.tolist()]
    names = [_field(f) for f in table.feature_names.tolist()] + [""]  # the last: an instance without features
    labelled = table.y is not None
    pre = [f"{i},{_field(v)}," for i, v in zip(ids, table.y.tolist())] if labelled else [f"{i}," for i in ids]

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            head = "instance_id,label,feature" if labelled else "instance_id,feature"
            fh.write(head + (",value\n" if counts_of is not None else "\n"))
            empty = len(names) - 1
            for start in range(0, X.shape[0], 4096):  # each field quoted once; rows joined a block at a time
                block = X[start:start + 4096]
                counts = np.diff(block.indptr)
                rows = np.repeat(np.arange(block.shape[0]), np.maximum(counts, 1)) + start
                cols = np.full(len(rows), empty, dtype=np.int64)
                has = np.repeat(counts > 0, np.maximum(counts, 1))
                cols[has] = block.indices
                if counts_of is None:
                    fh.write("".join(f"{pre[r]}{names[c]}\n" for r, c in zip(rows.tolist(), cols.tolist())))
                    continue
                cell = np.full(len(rows), -1, dtype=np.int64)  # the cell's place in X.data (-1: no feature)
                cell[has] = np.arange(block.indptr[0], block.indptr[-1]) + X.indptr[start]
                fh.write("".join(f"{pre[r]}{names[c]},{counts_of[k] if k >= 0 else ''}\n"
                                 for r, c, k in zip(rows.tolist(), cols.tolist(), cell.tolist())))

    atomic_write(path, write)
    return path


def _cell_type(values) -> type:
    """``int64`` for whole counts (written ``3``, not ``3.0``), else ``float64``."""
    return np.int64 if values.nnz == 0 or np.all(values.data == np.round(values.data)) else np.float64


def _field(value) -> str:
    """One CSV field as the ``csv`` module (and :class:`_CsvWriter`) writes it: quoted when it must be."""
    s = str(value)
    return '"' + s.replace('"', '""') + '"' if any(ch in s for ch in ',"\n\r') else s


def read_csv(path: str | os.PathLike, *, has_label: bool = True):
    """Read a CSV written by :func:`write_csv`.

    Parameters
    ----------
    path : path
    has_label : bool
        Whether the last column is the label.

    Returns
    -------
    instance_ids : ndarray of str
    feature_names : ndarray of str
    X : csr_matrix of float 0/1
    y : ndarray or None
        Integers when every label is an integer literal, else strings; ``None`` when
        ``has_label=False``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("instance_id,GO:1,GO:2,label\\ng1,1,0,pro\\ng2,1,1,anti\\n")
    >>> ids, names, X, y = read_csv(p)
    >>> ids.tolist(), names.tolist(), X.toarray().astype(int).tolist(), y.tolist()
    (['g1', 'g2'], ['GO:1', 'GO:2'], [[1, 0], [1, 1]], ['pro', 'anti'])
    """
    path = Path(path)
    try:
        return _read_csv(path, has_label)
    except UnicodeDecodeError:
        raise utf8_error(path) from None


def _read_csv(path: Path, has_label: bool):
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise InputFormatError("empty CSV file", path, 1) from None
        k = len(header) - (2 if has_label else 1)
        if k < 0:
            raise InputFormatError("too few columns in header", path, 1)
        ids, ys, rows, cols = [], [], [], []
        for ln, rec in enumerate(reader, start=2):
            if len(rec) != len(header):
                raise InputFormatError(f"{len(rec)} columns, expected {len(header)}", path, ln)
            r = len(ids)
            ids.append(rec[0])
            for j, v in enumerate(rec[1:1 + k]):
                if v == "1":
                    rows.append(r)
                    cols.append(j)
                elif v != "0":
                    last = not has_label and j == k - 1  # the class, under another name?
                    raise InputFormatError(f"non-binary value {v!r} in column {header[1 + j]!r}" + (
                        " (the last column: if it is the class, name it label or class)" if last else ""), path, ln)
            if has_label:
                ys.append(rec[-1])
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(ids), k))
    y = None
    if has_label:
        y = np.asarray(ys, dtype=str)
        if len(y) and all(re.fullmatch(r"[+-]?\d+", v) for v in ys):
            y = y.astype(np.int64)
    return np.asarray(ids, dtype=str), np.asarray(header[1:1 + k], dtype=str), X, y


# --------------------------------------------------------------------------- edges CSV
def write_edges_csv(hierarchy: FeatureHierarchy, path: str | os.PathLike) -> Path:
    """Write the hierarchy as ``child,parent`` rows (roots: one row with an empty parent).

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    path : path

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> h = FeatureHierarchy.from_edges([("b", "a"), ("c", "a"), ("c", "b")])
    >>> print(write_edges_csv(h, pathlib.Path(tempfile.mkdtemp()) / "e.csv").read_text(), end="")
    child,parent
    a,
    b,a
    c,a
    c,b
    """
    path = Path(path)
    ids = hierarchy.node_ids.tolist()
    P = hierarchy.parent_matrix

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = _CsvWriter(fh)
            w.writerow(["child", "parent"])
            for i, name in enumerate(ids):
                parents = P.indices[P.indptr[i]:P.indptr[i + 1]]
                if parents.size == 0:
                    w.writerow([name, ""])
                for p in sorted(ids[j] for j in parents.tolist()):
                    w.writerow([name, p])

    atomic_write(path, write)
    return path


def read_edges_csv(path: str | os.PathLike, *, on_cycle: str = "raise") -> FeatureHierarchy:
    """Read a ``child,parent`` CSV into a :class:`FeatureHierarchy`.

    Nodes keep the order of their first appearance (as child, then as parent); an empty
    parent declares a node without parents.

    Parameters
    ----------
    path : path
    on_cycle : {"raise", "break"}
        A self-loop or cycle raises :class:`~kg.errors.CycleError`, or is broken with a
        :class:`~kg.errors.HierarchyCycleWarning`.

    Returns
    -------
    FeatureHierarchy

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text("child,parent\\nAthlete,Person\\nPerson,Agent\\nPlace,\\n")
    >>> h = read_edges_csv(p)
    >>> h.node_ids.tolist(), h.ancestors("Athlete")
    (['Athlete', 'Person', 'Place', 'Agent'], ['Agent', 'Person'])
    """
    path = Path(path)
    try:
        return _read_edges(path, on_cycle)
    except UnicodeDecodeError:
        raise utf8_error(path) from None


def _read_edges(path: Path, on_cycle: str) -> FeatureHierarchy:
    nodes: dict[str, None] = {}
    edges: list[tuple[str, str]] = []
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header[:2]] != ["child", "parent"]:
            raise InputFormatError("expected a header 'child,parent'", path, 1)
        for ln, rec in enumerate(reader, start=2):
            if not rec:
                continue
            if len(rec) != 2:
                raise InputFormatError(f"{len(rec)} columns, expected 2 (child,parent)", path, ln)
            child, parent = rec
            if not child:
                raise InputFormatError("empty child id", path, ln)
            nodes.setdefault(child)
            if parent:
                edges.append((child, parent))
    for _, p in edges:
        nodes.setdefault(p)
    return FeatureHierarchy.from_edges(edges, nodes=list(nodes), on_cycle=on_cycle)


def first_line_naming(path: str | os.PathLike, nodes: set[str]) -> tuple[int, str]:
    """The first line of a ``child,parent`` CSV that names one of ``nodes``, and that node (for an error message).

    Parameters
    ----------
    path : path
    nodes : set of str

    Returns
    -------
    (int, str)
        The line number (the header is line 1) and the node; ``(0, min(nodes))`` when none is named.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text("child,parent\\nA,B\\nD,NOPE\\nZZZ,A\\n")
    >>> first_line_naming(p, {"ZZZ", "NOPE"})
    (3, 'NOPE')
    """
    with open(path, encoding="utf-8", newline="") as fh:
        for ln, rec in enumerate(csv.reader(fh), start=1):
            if ln > 1:
                for v in rec:
                    if v in nodes:
                        return ln, v
    return 0, min(nodes)
