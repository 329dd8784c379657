"""The binary feature table: a sparse 0/1 matrix closed under the ancestors of a hierarchy.

Invariant (the "implication"): for every edge ``child -> parent`` of the hierarchy and every
instance, ``X[i, child] <= X[i, parent]``. Tables built from facts are closed upward and hold
it by construction; tables read from files are checked and either repaired on request or
reported.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from kg.collector import collector_paused
from kg.errors import ImplicationError, InputFormatError, KgfsError, UnknownFeatureError
from kg.files import atomic_write
from kg.hierarchy import FeatureHierarchy, _as_str_array

__all__ = ["FeatureTable", "HierarchicalCSR", "TableNotes", "carried_hierarchy"]

_FORMAT_VERSION = 2  # 2: ids as UTF-8 text (1: fixed-width unicode arrays, still read)
_CLOSED = object()  # ``check`` of a table closed by its own hierarchy (from_facts): the implication holds


@dataclass(eq=False)
class FeatureTable:
    """Instances x hierarchical binary features, with labels.

    Parameters
    ----------
    X : scipy.sparse matrix of 0/1, shape (n_instances, n_features)
        Stored as ``csr_matrix`` of ``float64`` (what scikit-learn estimators expect).
    feature_names : sequence of str
        Column ids; must equal ``hierarchy.node_ids`` (same ids, same order).
    instance_ids : sequence of str
    y : array of shape (n_instances,), optional
        Class labels (any hashable values; strings and ints are kept as they are).
    hierarchy : FeatureHierarchy
    meta : dict
        Provenance and reports (e.g. ``{"unknown_terms": [...]}``); JSON-serialisable.
    check : {"raise", "repair", "ignore"}
        What to do when ``X`` violates the implication: raise
        :class:`~kg.errors.ImplicationError`, close the rows upward (recorded in
        ``meta["repaired_cells"]``), or keep the table as it is (counted in
        ``meta["violations"]``).
    values : scipy.sparse matrix, optional
        Counts behind the 0/1 cells (``--values count``: how many relations of a kind an instance
        has), positive exactly where ``X`` is 1. ``X`` stays their presence, which the
        hierarchical selectors read; the flat selectors and the exports read the counts
        (:meth:`with_values`).

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"]}, h, labels={"a": 1, "b": 0})
    >>> t.X.toarray().astype(int).tolist()
    [[1, 1], [0, 1]]
    """

    X: sp.csr_matrix
    feature_names: np.ndarray
    instance_ids: np.ndarray
    y: np.ndarray | None
    hierarchy: FeatureHierarchy
    meta: dict = field(default_factory=dict)
    check: str = "raise"
    values: sp.csr_matrix | None = None

    def __post_init__(self) -> None:
        x = sp.csr_matrix(self.X)
        x.sum_duplicates()
        x.eliminate_zeros()
        if x.nnz and not np.all(x.data == 1):
            bad = np.flatnonzero(x.data != 1)[0]
            row = int(np.searchsorted(x.indptr, bad, side="right") - 1)
            raise InputFormatError(
                f"non-binary value {x.data[bad].item()!r} at instance {row}, feature {int(x.indices[bad])}"
                " (features must be 0/1)"
            )
        self.X = x.astype(np.float64)
        # the hierarchy's own ids (as from_facts gives them) are its nodes in its order: not copied, not compared
        same = self.feature_names is self.hierarchy.node_ids
        if not same:
            self.feature_names = _as_str_array(self.feature_names)
        self.instance_ids = _as_str_array(self.instance_ids)
        n, m = self.X.shape
        if len(self.feature_names) != m:
            raise ValueError(f"{len(self.feature_names)} feature names for {m} columns")
        if len(self.instance_ids) != n:
            raise ValueError(f"{len(self.instance_ids)} instance ids for {n} rows")
        if not same and self.feature_names.tolist() != self.hierarchy.node_ids.tolist():
            raise ValueError("the hierarchy's nodes must be the table's features, in the same order")
        if self.y is not None:
            self.y = np.asarray(self.y)
            if self.y.shape != (n,):
                raise ValueError(f"y has shape {self.y.shape}, expected ({n},)")
        self.meta = dict(self.meta)
        if self.check is _CLOSED:  # from_facts: closed by the hierarchy itself, nothing to look for
            self.check = "raise"
            viol = sp.coo_matrix(self.X.shape, dtype=np.int8)
        elif self.check not in ("raise", "repair", "ignore"):
            raise ValueError(f"check must be 'raise', 'repair' or 'ignore', got {self.check!r}")
        else:
            viol = self.hierarchy.violations(self.X)
        if viol.nnz:
            if self.check == "raise":
                i, j = int(viol.row[0]), int(viol.col[0])
                child = [
                    c for c in self.hierarchy.child_indices(j) if self.X[i, c]
                ][0]
                raise ImplicationError(
                    f"{viol.nnz} cell(s) violate the implication, e.g. instance "
                    f"{str(self.instance_ids[i])!r} has {str(self.feature_names[child])!r} but not its parent "
                    f"{str(self.feature_names[j])!r}; pass check='repair' to add the missing ancestors"
                )
            if self.check == "repair":
                before = self.X.nnz
                self.X = self.hierarchy.close(self.X).astype(np.float64)
                self.meta["repaired_cells"] = int(self.X.nnz - before)
            else:
                self.meta["violations"] = int(viol.nnz)
        if self.values is not None:
            self.values = self._checked_values(self.values)

    def _checked_values(self, values) -> sp.csr_matrix:
        """``values`` as a csr matrix laid out as ``X`` (the same cells, in the same order)."""
        v = sp.csr_matrix(values, dtype=np.float64)
        v.sum_duplicates()
        v.eliminate_zeros()
        if v.shape != self.X.shape:
            raise ValueError(f"values have shape {v.shape}, the table {self.X.shape}")
        if v.nnz and v.data.min() < 0:
            raise ValueError("values must not be negative")
        self.X.sort_indices()
        v.sort_indices()
        if v.nnz != self.X.nnz or not (np.array_equal(v.indices, self.X.indices)
                                       and np.array_equal(v.indptr, self.X.indptr)):
            raise ValueError("values must be positive exactly where X is 1")
        return v

    def with_values(self, values) -> FeatureTable:
        """The same table with counts behind its cells (see the class).

        Parameters
        ----------
        values : sparse matrix
            Positive exactly where ``X`` is 1.

        Returns
        -------
        FeatureTable

        Examples
        --------
        >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
        >>> t = FeatureTable.from_facts({"a": ["Athlete"]}, h).with_values([[2, 3]])
        >>> t.values.toarray().tolist(), t.X.toarray().tolist()
        ([[2.0, 3.0]], [[1.0, 1.0]])
        """
        return FeatureTable(self.X, self.feature_names, self.instance_ids, self.y, self.hierarchy, meta=self.meta,
                            check="ignore", values=values)

    # ------------------------------------------------------------------ construction
    @classmethod
    @collector_paused()  # millions of ids at the in-links of hubs, none in a reference cycle
    def from_facts(
        cls,
        facts: Mapping[str, Iterable[str]],
        hierarchy: FeatureHierarchy,
        labels: Mapping[str, object] | None = None,
        *,
        min_support: int = 1,
        unknown: str = "raise",
        instances: Sequence[str] | None = None,
        meta: dict | None = None,
    ) -> FeatureTable:
        """Build a table from ``instance -> direct features``, closed under ancestors.

        Parameters
        ----------
        facts : mapping of instance id -> iterable of feature ids
            The direct (most specific) features of each instance; ancestors are added. A member of a
            cycle the hierarchy merged into one node (``on_cycle="merge"``) is that node
            (:meth:`~kg.hierarchy.FeatureHierarchy.lookup`); the merged nodes are listed in
            ``meta["merged_cycles"]`` (node -> members).
        hierarchy : FeatureHierarchy
        labels : mapping of instance id -> label, optional
            When given, every instance must have a label.
        min_support : int
            Keep only features present in at least this many instances (after closure). Since
            an ancestor is present wherever a descendant is, the kept set is closed upward and
            the implication still holds.
        unknown : {"raise", "drop"}
            A feature id that is not in the hierarchy raises
            :class:`~kg.errors.UnknownFeatureError`, or is dropped and listed in
            ``meta["unknown_features"]``.
        instances : sequence of str, optional
            Row order (instances without facts become empty rows). Default: ``facts`` order.
        """
        if unknown not in ("raise", "drop"):
            raise ValueError(f"unknown must be 'raise' or 'drop', got {unknown!r}")
        if min_support < 1:
            raise ValueError(f"min_support must be >= 1, got {min_support}")
        ids = list(facts) if instances is None else [str(i) for i in instances]
        if not ids:
            raise KgfsError("no instances: the corpus or fact set is empty")
        missing: dict[str, list[str]] = {}
        flat: list = []
        ends = np.empty(len(ids), np.int64)
        for r, inst in enumerate(ids):  # one extend per instance; the look-ups below in one C-level map
            flat.extend(facts.get(inst, ()))
            ends[r] = len(flat)
        cols = hierarchy.columns(flat)  # a member of a merged cycle is its node
        rows = np.repeat(np.arange(len(ids), dtype=np.int64), np.diff(ends, prepend=0))
        bad = np.flatnonzero(cols < 0)
        for k in bad.tolist():  # in instance order, as they were met
            missing.setdefault(str(flat[k]), []).append(ids[int(rows[k])])
        if len(bad):
            ok = cols >= 0
            rows, cols = rows[ok], cols[ok]
        if missing and unknown == "raise":
            first = sorted(missing)[0]
            raise UnknownFeatureError(
                f"{len(missing)} feature id(s) not in the hierarchy, e.g. {first!r} "
                f"(instance {missing[first][0]!r}); pass unknown='drop' to drop them"
            )
        direct = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(len(ids), hierarchy.n_nodes))
        x = hierarchy.close(direct)
        support = np.asarray(x.sum(axis=0)).ravel()
        keep = np.flatnonzero(support >= min_support)
        y = None
        if labels is not None:
            lost = [i for i in ids if i not in labels]
            if lost:
                raise KgfsError(f"{len(lost)} instance(s) have no label, e.g. {lost[0]!r}")
            y = np.asarray([labels[i] for i in ids])
        m = dict(meta or {})
        if missing:
            m["unknown_features"] = sorted(missing)
        if hierarchy.merged:  # the cycles merged into one feature each, reported once
            m["merged_cycles"] = {k: list(v) for k, v in hierarchy.merged.items()}
        m["min_support"] = int(min_support)
        if len(keep) == hierarchy.n_nodes:  # every feature kept: no column to drop (copies cost seconds at 10M cells)
            return cls(x, hierarchy.node_ids, ids, y, hierarchy, meta=m, check=_CLOSED)
        return cls(
            x[:, keep],
            hierarchy.node_ids[keep],
            ids,
            y,
            hierarchy.restrict(keep),
            meta=m,
            check=_CLOSED,  # the kept features are closed upward (support only falls down the hierarchy)
        )

    # ------------------------------------------------------------------ shape and views
    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    @property
    def n_instances(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def __repr__(self) -> str:
        return (
            f"FeatureTable(n_instances={self.n_instances}, n_features={self.n_features}, "
            f"nnz={self.X.nnz}, labelled={self.y is not None})"
        )

    @property
    def support(self) -> np.ndarray:
        """Number of instances having each feature."""
        return np.asarray(self.X.sum(axis=0)).ravel().astype(np.int64)

    def select_features(self, keep) -> FeatureTable:
        """The table restricted to some features (mask, indices or ids), hierarchy restricted too.

        The result keeps the implication because the restricted hierarchy links each kept
        feature to its nearest kept ancestors.
        """
        idx = self.hierarchy._as_indices(keep)
        return FeatureTable(
            self.X[:, idx],
            self.feature_names[idx],
            self.instance_ids,
            self.y,
            self.hierarchy.restrict(idx),
            meta=self.meta,
            check="ignore" if "violations" in self.meta else "raise",
            values=None if self.values is None else self.values[:, idx],
        )

    def select_instances(self, rows) -> FeatureTable:
        """The table restricted to some rows (mask or indices)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        return FeatureTable(
            self.X[rows],
            self.feature_names,
            self.instance_ids[rows],
            None if self.y is None else self.y[rows],
            self.hierarchy,
            meta=self.meta,
            check="ignore",
            values=None if self.values is None else self.values[rows],
        )

    def drop_rare(self, min_support: int) -> FeatureTable:
        """Drop features present in fewer than ``min_support`` instances."""
        out = self.select_features(self.support >= min_support)
        out.meta["min_support"] = int(min_support)
        return out

    def to_frame(self):
        """A pandas DataFrame (sparse columns: the counts when the table has them, else 0/1) indexed by instance id,
        plus a ``label`` column."""
        import pandas as pd

        cells = self.X.astype(np.int8) if self.values is None else self.values
        df = pd.DataFrame.sparse.from_spmatrix(cells, index=self.instance_ids, columns=self.feature_names)
        if self.y is not None:
            df["label"] = self.y
        return df

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike) -> Path:
        """Write the table to one ``.npz`` file atomically (no pickles; loadable with ``load``)."""
        path = Path(path)
        c, p = self.hierarchy.edges
        y = self.y
        if y is not None and y.dtype.kind not in "biuf":
            y = y.astype(str)
        arrays = {
            "format_version": np.array(_FORMAT_VERSION),
            # int32 column indices while they fit (half the bytes to deflate and inflate), as scipy keeps them
            "data_indices": self.X.indices.astype(np.int32 if self.X.shape[1] < 2**31 else np.int64),
            "data_indptr": self.X.indptr.astype(np.int64),
            "shape": np.array(self.X.shape, dtype=np.int64),
            **_text("feature_names", self.feature_names.tolist()),
            **_text("instance_ids", self.instance_ids.tolist()),
            "edge_child": c,
            "edge_parent": p,
            **_text("removed_edges", [x for e in self.hierarchy.removed_edges for x in e]),  # (child, parent) pairs
            # (node, member) for each member of a merged cycle (FeatureHierarchy.merged)
            **_text("merged", [x for k, vs in self.hierarchy.merged.items() for v in vs for x in (k, v)]),
            **_meta_arrays(self.meta, self.feature_names.tolist()),
            "check": np.array(self.check),
        }
        if y is not None:
            arrays["y"] = y
        if self.values is not None:  # laid out as X's cells (same indices): their data only
            arrays["values_data"] = self.values.data

        def write(tmp: Path) -> None:
            # numpy's savez_compressed format (np.load reads it), deflated at level 1: a corpus's table of 10M
            # cells is written in a third of the time of savez_compressed's level, for a third more bytes
            with open(tmp, "wb") as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED,
                                                        compresslevel=1) as zf:
                for name, value in arrays.items():
                    with zf.open(name + ".npy", "w", force_zip64=True) as out:
                        np.lib.format.write_array(out, np.asanyarray(value), allow_pickle=False)

        atomic_write(path, write)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> FeatureTable:
        """Read a table written by :meth:`save`."""
        path = Path(path)
        with _open(path) as z:
            shape = tuple(int(v) for v in z["shape"])
            indices = z["data_indices"]
            x = sp.csr_matrix((np.ones(indices.size), indices, z["data_indptr"]), shape=shape)
            names = _read_text(z, "feature_names", path)
            removed = list(_pairs(_read_text(z, "removed_edges", path)))
            merged: dict[str, list[str]] = {}
            for node, member in _pairs(_read_text(z, "merged", path)):  # tables written before merges: none
                merged.setdefault(node, []).append(member)
            h = FeatureHierarchy(names, z["edge_child"], z["edge_parent"], removed_edges=removed, merged=merged)
            return cls(
                x,
                h.node_ids,  # its ids, in its order: not copied again
                _read_text(z, "instance_ids", path),
                z["y"] if "y" in z else None,
                h,
                meta=_read_meta(z, h.node_ids.tolist(), path),
                check="ignore" if str(z["check"]) == "ignore" else "raise",
                values=sp.csr_matrix((z["values_data"], indices, z["data_indptr"]), shape=shape)
                if "values_data" in z else None,
            )

    @staticmethod
    def load_notes(path: str | os.PathLike) -> TableNotes:
        """What the notes of a table file written by :meth:`save` are written from, without reading its matrix,
        ids, hierarchy or term names.

        Examples
        --------
        >>> import tempfile, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")  # the cycle broken: a HierarchyCycleWarning
        ...     h = FeatureHierarchy.from_edges([("a", "b"), ("b", "a")], on_cycle="break")
        >>> t = FeatureTable.from_facts({"i": ["a"]}, h, meta={"dataset": "d", "term_names": {"a": "A", "b": "B"}})
        >>> FeatureTable.load_notes(t.save(Path(tempfile.mkdtemp()) / "t.npz"))
        TableNotes(meta={'dataset': 'd', 'min_support': 1}, removed_edges=[('b', 'a')], named=True)
        """
        path = Path(path)
        with _open(path) as z:
            meta = _read_meta(z, None, path)
            named = "term_names.text" in z or bool(meta.pop("term_names", None))
            return TableNotes(meta, _pairs(_read_text(z, "removed_edges", path)), named)


class TableNotes(NamedTuple):
    """A table file's meta without its term names, the edges its hierarchy removed to break cycles, and whether
    it names its features (``term_names``): :meth:`FeatureTable.load_notes`."""

    meta: dict
    removed_edges: list[tuple[str, str]]
    named: bool


def _open(path: Path):
    """A table file's arrays (``np.load``'s lazy archive), its format version checked."""
    try:
        z = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except Exception as exc:  # noqa: BLE001 - any decoding error means "not our file"
        raise InputFormatError(f"not a kgfs table file ({exc})", path) from exc
    try:
        version = int(z["format_version"]) if "format_version" in z else None
        if version not in (1, _FORMAT_VERSION):
            raise InputFormatError("not a kgfs table file (unknown format version)", path)
    except BaseException:
        z.close()
        raise
    return z


def _text(name: str, values: list[str]) -> dict[str, np.ndarray]:
    """Strings as a table file stores them: their UTF-8 bytes one after the other (``NAME.text``, uint8) and where
    each ends (``NAME.ends``, int64). A fixed-width unicode array held every id at the length of the longest, four
    bytes a character: 2.1M relation ids took 1.4 GB to write and as much to read back.

    The bytes are encoded a block of strings at a time into their place (a few strings beyond ASCII, e.g. the
    ``≡`` of merged cycles, made one string of them all two bytes a character, and each string encoded on its own
    took 1.1 s of 2.1M ids).

    Examples
    --------
    >>> t = _text("x", ["ab", "≡", ""])
    >>> t["x.text"].tobytes().decode(), t["x.ends"].tolist()
    ('ab≡', [2, 5, 5])
    """
    n = len(values)
    lengths = np.fromiter(map(len, values), np.int64, n)
    wide = np.flatnonzero(~np.fromiter(map(str.isascii, values), bool, n))  # their UTF-8 bytes are more
    if wide.size:
        lengths[wide] = [len(values[i].encode("utf-8")) for i in wide.tolist()]
    ends = np.cumsum(lengths)
    blob = np.empty(int(ends[-1]) if n else 0, np.uint8)
    for a in range(0, n, _BLOCK):
        chunk = "".join(values[a:a + _BLOCK]).encode("utf-8")
        start = int(ends[a - 1]) if a else 0
        blob[start:start + len(chunk)] = np.frombuffer(chunk, np.uint8)
    return {f"{name}.text": blob, f"{name}.ends": ends}


#: How many strings :func:`_text` encodes at a time.
_BLOCK = 1 << 16


def _read_text(z, name: str, path: Path) -> list[str]:
    """The strings :func:`_text` stored (a file of format 1: a unicode array of them; a missing one: none)."""
    if f"{name}.text" not in z:
        return z[name].ravel().tolist() if name in z else []
    data, ends = z[f"{name}.text"], z[f"{name}.ends"]
    if (data.ndim != 1 or data.dtype != np.uint8 or ends.ndim != 1 or ends.dtype.kind not in "iu"
            or (ends.size and (ends[-1] != data.size or (np.diff(ends, prepend=0) < 0).any()))):
        raise InputFormatError(f"not a kgfs table file (the ends of its {name} do not fit its text)", path)
    blob = data.tobytes()
    bounds = zip([0, *ends[:-1].tolist()], ends.tolist())
    if blob.isascii():  # a character a byte: the text cut at the ends
        text = blob.decode("ascii")
        return [text[a:b] for a, b in bounds]
    try:  # each string decoded from its bytes (faster than cutting one decoded text beyond ASCII, and less memory)
        return [blob[a:b].decode("utf-8") for a, b in bounds]
    except UnicodeDecodeError as exc:  # no UTF-8, or an end inside a character
        raise InputFormatError(f"not a kgfs table file (its {name} are no UTF-8 text: {exc})", path) from None


def _meta_arrays(meta: dict, features: list[str]) -> dict[str, np.ndarray]:
    """The meta as UTF-8 JSON (``meta.text``); its ``term_names`` of every feature in column order (what the command
    line gives a table: 2.1M names at the in-links of hubs, their ids repeated as keys made 260 MB of the JSON) as
    text beside the features (``term_names``), not in it."""
    names = meta.get("term_names")
    aligned = isinstance(names, dict) and len(names) == len(features) and all(
        type(v) is str for v in names.values()) and list(names) == features
    rest = {k: v for k, v in meta.items() if not (aligned and k == "term_names")}
    out = {"meta.text": np.frombuffer(json.dumps(rest, sort_keys=True, default=str).encode("utf-8"), np.uint8)}
    if aligned:
        out.update(_text("term_names", list(names.values())))
    return out


def _read_meta(z, features: list[str] | None, path: Path) -> dict:
    """The meta :func:`_meta_arrays` stored (a file of format 1: one unicode string of JSON); ``features``
    ``None``: without the term names stored beside it (a file of format 1 holds them in it)."""
    try:
        meta = json.loads(z["meta.text"].tobytes().decode("utf-8") if "meta.text" in z else str(z["meta"]))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFormatError(f"not a kgfs table file (its meta is no JSON: {exc})", path) from None
    if features is not None and "term_names.text" in z:
        names = _read_text(z, "term_names", path)
        if len(names) != len(features):
            raise InputFormatError(f"not a kgfs table file ({len(names)} term names for {len(features)} features)",
                                   path)
        meta["term_names"] = dict(zip(features, names))
    return meta


def _pairs(flat: list[str]) -> list[tuple[str, str]]:
    """``[a, b, c, d]`` as ``[(a, b), (c, d)]``."""
    return list(zip(flat[0::2], flat[1::2]))


class HierarchicalCSR(sp.csr_matrix):
    """A csr matrix that carries the hierarchy over its columns (what :class:`kg.features.KGFeatures` returns).

    An ordinary ``scipy.sparse.csr_matrix`` in every respect (scikit-learn estimators take it as it is),
    plus two attributes: ``hierarchy`` (the :class:`~kg.hierarchy.FeatureHierarchy` over the columns,
    in column order) and ``feature_names`` (the column ids). A selector built with
    ``hierarchy="from_input"`` reads them (:func:`carried_hierarchy`). A selection of rows (``X[rows]``,
    ``X[rows, :]``, ``X[rows, ...]``: what cross-validation takes of it) carries the hierarchy too; other matrices
    derived from it (column slices, products, ``astype``) carry nothing, as their columns may differ.

    Examples
    --------
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> x = HierarchicalCSR.wrap(sp.csr_matrix([[1.0, 1.0], [0.0, 1.0]]), h)
    >>> x.feature_names.tolist(), carried_hierarchy(x) is h, carried_hierarchy(x[[1]]) is h
    (['Athlete', 'Person'], True, True)
    >>> carried_hierarchy(x[:, [1, 0]]) is None
    True
    """

    hierarchy: FeatureHierarchy | None = None
    feature_names: np.ndarray | None = None

    @classmethod
    def wrap(cls, X, hierarchy: FeatureHierarchy) -> HierarchicalCSR:
        """``X`` (any sparse matrix over ``hierarchy``'s nodes, in order) as a matrix that carries ``hierarchy``."""
        X = sp.csr_matrix(X)
        if X.shape[1] != hierarchy.n_nodes:
            raise ValueError(f"X has {X.shape[1]} columns but the hierarchy {hierarchy.n_nodes} nodes")
        out = cls((X.data, X.indices, X.indptr), shape=X.shape)
        out.hierarchy = hierarchy
        out.feature_names = hierarchy.node_ids
        return out

    def __getitem__(self, key):
        out = super().__getitem__(key)
        rows_only = not isinstance(key, tuple) or (len(key) == 2 and (key[1] is Ellipsis or (
            isinstance(key[1], slice) and key[1] == slice(None))))
        if (rows_only and self.hierarchy is not None and isinstance(out, HierarchicalCSR) and out.ndim == 2
                and out.shape[1] == self.shape[1]):
            out.hierarchy, out.feature_names = self.hierarchy, self.feature_names
        return out


def carried_hierarchy(X) -> FeatureHierarchy | None:
    """The hierarchy ``X`` carries: a :class:`HierarchicalCSR`'s, or a DataFrame's ``attrs["hierarchy"]``.

    Parameters
    ----------
    X : object
        Any input of an estimator.

    Returns
    -------
    FeatureHierarchy or None
        None when ``X`` carries none (or one whose size is not ``X``'s number of columns).

    Examples
    --------
    >>> import pandas as pd
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b"])
    >>> df = pd.DataFrame([[1, 1]], columns=["a", "b"])
    >>> df.attrs["hierarchy"] = h
    >>> carried_hierarchy(df) is h, carried_hierarchy([[1, 1]])
    (True, None)
    """
    if isinstance(X, HierarchicalCSR):
        h = X.hierarchy
    else:
        attrs = getattr(X, "attrs", None)
        h = attrs.get("hierarchy") if isinstance(attrs, dict) else None
    if not isinstance(h, FeatureHierarchy):
        return None
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != h.n_nodes:
        return None
    return h
