"""One selector fitted on a whole table, as a frame and CSV files (``kgfs select``, the select stage).

- :func:`select_features`: fit a registered selector on a table; returns it and its
  :func:`selection_frame`, one row per feature: id, GO term name (when the table knows them),
  support, score, level, number of parents, then its class enrichment
  (:mod:`selection.measures.enrichment`: ``enriched_in``, ``p_enrichment``, ``q_enrichment``,
  ``support_<class>`` per class in sorted order), selected.
- :func:`write_selection`: ``selection.csv`` (every feature, the selected first, by score) and
  ``selected_features.csv`` (the selected ones); :func:`read_selected` reads the latter's ids back.

The score is the selector's ``scores_`` when it has them, else the information gain of each
feature (so the files always say how relevant a kept or dropped feature is).

Lazy selectors (RPV, HIP, MR, All-Pos, All-Neg) choose features per instance, not one subset:
:func:`select_per_instance` fits one on the whole table and gives each instance of the table its
own selection (the instance is part of the data the selector was fitted on, as every row is for an
eager selector here); :func:`write_instance_selection` writes it as ``instance_features.csv``
(one row per instance and selected feature, with the instance's value), ``instance_counts.csv``
(per instance: label, features present, selected, selected present / absent) and
``selection.csv`` (per feature: how many instances selected it).

Examples
--------
>>> from kg.hierarchy import FeatureHierarchy
>>> from kg.table import FeatureTable
>>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
>>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"], "c": []}, h,
...                             labels={"a": 1, "b": 1, "c": 0})
>>> sel, frame = select_features(t, "complete")
>>> frame["selected"].tolist()
[True, True]
>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> write_selection(frame, d)
{'selection': 'selection.csv', 'selected': 'selected_features.csv'}
>>> read_selected(f"{d}/selected_features.csv")
['Person', 'Athlete']
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from kg.errors import KgfsError
from kg.files import atomic_write
from kg.rdf.relations import kind_of
from selection.base import reads_counts
from selection.measures.enrichment import class_enrichment
from selection.measures.relevance import information_gain
from selection.registry import get_selector, selector_entry

__all__ = ["read_selected", "select_features", "select_per_instance", "selection_frame", "write_instance_selection",
           "write_selection"]


def select_features(table, selector: str, params: Mapping | None = None):
    """Fit the registered ``selector`` on the whole table.

    Parameters
    ----------
    table : kg.table.FeatureTable
        A labelled table.
    selector : str or selection.registry.Entry
        A name of :mod:`selection.registry` (or its entry, looked up already).
    params : mapping, optional
        The selector's parameters.

    Returns
    -------
    selector : HierarchicalSelector
        Fitted.
    frame : pandas.DataFrame
        :func:`selection_frame` of it.

    Raises
    ------
    KgfsError
        When the table has no labels, or ``selector`` is lazy (a subset per instance).

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> t = FeatureTable.from_facts({"a": ["x"], "b": []}, FeatureHierarchy.from_edges([], nodes=["x"]),
    ...                             labels={"a": 1, "b": 0})
    >>> select_features(t, "complete")[1]["feature"].tolist()
    ['x']
    """
    entry = selector_entry(selector)  # looked up once; _fitted builds from the entry
    if entry.kind == "lazy":
        raise KgfsError(
            f"{entry.name!r} is a lazy selector: it selects features per test instance, not one subset of the "
            "whole table; select_per_instance gives each instance's selection, evaluation scores it (protocol "
            "rpv2020, kgfs evaluate) and selection.lazy.LazySelectionClassifier classifies with it"
        )
    sel = _fitted(table, entry, params)
    return sel, selection_frame(table, sel)


def _fitted(table, selector: str, params):
    if table.y is None:
        raise KgfsError("the table has no labels; selection needs a class")
    if len(np.unique(np.asarray(table.y))) < 2:
        raise KgfsError(
            f"the table has a single class ({np.asarray(table.y)[0].item()!r}); selection needs two or more")
    sel = get_selector(selector, table.hierarchy, **dict(params or {}))
    counts = getattr(table, "values", None)
    return sel.fit(counts if counts is not None and reads_counts(sel) else table.X, table.y)


def select_per_instance(table, selector: str, params: Mapping | None = None):
    """Fit the registered lazy ``selector`` on the whole table and select features for each of its instances.

    Parameters
    ----------
    table : kg.table.FeatureTable
        A labelled table.
    selector : str
        A lazy selector of :mod:`selection.registry` (``rpv``, ``hip``, ``mr``, ...).
    params : mapping, optional

    Returns
    -------
    selector : LazySelector
        Fitted.
    mask : scipy.sparse.csr_matrix of bool (n_instances x n_features)
        Row ``i``: the features selected for instance ``i``.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person")])
    >>> t = FeatureTable.from_facts({"a": ["Athlete"], "b": ["Person"], "c": []}, h, labels={"a": 1, "b": 1, "c": 0})
    >>> select_per_instance(t, "all-pos")[1].toarray().astype(int).tolist()
    [[1, 1], [0, 1], [0, 0]]
    """
    entry = selector_entry(selector)
    if entry.kind != "lazy":
        raise KgfsError(f"{entry.name!r} is not a lazy selector; select_features fits it on the whole table")
    sel = _fitted(table, entry, params)
    return sel, sel.select_for(table.X)


def write_instance_selection(table, mask, out: str | os.PathLike) -> dict[str, str]:
    """Write a per-instance selection: ``instance_features.csv``, ``instance_counts.csv``, ``selection.csv``.

    Parameters
    ----------
    table : kg.table.FeatureTable
    mask : scipy.sparse matrix of bool (n_instances x n_features)
        From :func:`select_per_instance`.
    out : str or os.PathLike
        The folder (created when missing).

    Returns
    -------
    dict
        Role (``instance_features``, ``instance_counts``, ``selection``) -> file name.

    Examples
    --------
    >>> import tempfile
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> t = FeatureTable.from_facts({"a": ["x"], "b": []}, FeatureHierarchy.from_edges([], nodes=["x"]),
    ...                             labels={"a": 1, "b": 0})
    >>> d = tempfile.mkdtemp()
    >>> sorted(write_instance_selection(t, select_per_instance(t, "all-neg")[1], d))
    ['instance_counts', 'instance_features', 'selection']
    >>> pd.read_csv(f"{d}/instance_features.csv").values.tolist()
    [['b', 'x', 0]]
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    m = sp.csr_matrix(mask, dtype=bool)
    X = sp.csr_matrix(table.X)
    rows, cols = m.nonzero()
    values = np.asarray(X[rows, cols]).ravel().astype(np.int8) if rows.size else np.zeros(0, np.int8)
    pairs = pd.DataFrame({"instance_id": table.instance_ids[rows], "feature": table.feature_names[cols],
                          "value": values})
    present = m.multiply(X).tocsr()
    counts = pd.DataFrame({"instance_id": table.instance_ids,
                           "n_present": np.diff(X.indptr), "n_selected": np.diff(m.indptr),
                           "n_selected_present": np.diff(present.indptr)})
    counts["n_selected_absent"] = counts["n_selected"] - counts["n_selected_present"]
    if table.y is not None:
        counts.insert(1, "label", table.y)
    h = table.hierarchy
    per_feature = pd.DataFrame({"feature": table.feature_names, "support": table.support,
                                "n_instances_selected": np.asarray(m.sum(axis=0)).ravel().astype(np.int64),
                                "level": np.asarray(h.levels), "n_parents": np.asarray(h.n_parents)})
    per_feature = _with_enrichment(per_feature, table)
    names = table.meta.get("term_names") if isinstance(table.meta.get("term_names"), dict) else None
    if names:
        per_feature.insert(1, "name", [names.get(f, "") for f in per_feature["feature"]])
    per_feature = per_feature.sort_values("n_instances_selected", ascending=False, kind="stable")
    files = {"instance_features": "instance_features.csv", "instance_counts": "instance_counts.csv",
             "selection": "selection.csv"}
    for role, frame in (("instance_features", pairs), ("instance_counts", counts), ("selection", per_feature)):
        atomic_write(out / files[role], lambda t, f=frame: f.to_csv(t, index=False))
    return files


def _with_enrichment(frame: pd.DataFrame, table) -> pd.DataFrame:
    """``frame`` (one row per feature, the table's order) with the enrichment columns after ``n_parents``.

    The q-values adjust over every feature of the table (all are tested), so ``selection.csv`` and
    ``selected_features.csv`` carry the same numbers. A table without labels gets no columns.
    """
    if table.y is None:
        return frame
    extra = class_enrichment(table.X, table.y).frame()
    at = frame.columns.get_loc("n_parents") + 1
    return pd.concat([frame.iloc[:, :at], extra.set_axis(frame.index), frame.iloc[:, at:]], axis=1)


def selection_frame(table, sel) -> pd.DataFrame:
    """One row per feature (table order): feature, name (when known), support, score, level, n_parents, the
    class enrichment, selected.

    Parameters
    ----------
    table : kg.table.FeatureTable
        The table ``sel`` was fitted on.
    sel : fitted selector
        Its ``get_support()`` gives the ``selected`` column; its ``scores_`` (when present) the
        ``score`` column, otherwise the information gain.

    Returns
    -------
    pandas.DataFrame
        The enrichment columns (:meth:`selection.measures.enrichment.Enrichment.frame`) when the table has
        labels: ``enriched_in`` (the class of the highest within-class support rate), ``p_enrichment`` (one-sided
        Fisher exact test of that over-representation on the whole table), ``q_enrichment`` (Benjamini-Hochberg
        over all features), ``support_<class>`` (instances of each class having the feature). Descriptive
        statistics on the data the selector saw, not an independent test.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> from selection.registry import get_selector
    >>> t = FeatureTable.from_facts({"a": ["x"], "b": []}, FeatureHierarchy.from_edges([], nodes=["x"]),
    ...                             labels={"a": 1, "b": 0}, meta={"term_names": {"x": "the x"}})
    >>> sel = get_selector("complete", t.hierarchy).fit(t.X, t.y)
    >>> selection_frame(t, sel).columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ['feature', 'name', 'support', 'score', 'level', 'n_parents', 'enriched_in', 'p_enrichment', 'q_enrichment',
     'support_0', 'support_1', 'selected']
    """
    mask = np.asarray(sel.get_support(), dtype=bool)
    scores = getattr(sel, "scores_", None)
    if scores is None:
        scores = information_gain(table.X, table.y)
    h = table.hierarchy
    df = pd.DataFrame({
        "feature": table.feature_names,
        "support": table.support,
        "score": np.round(np.asarray(scores, dtype=float), 12),
        "level": np.asarray(h.levels),
        "n_parents": np.asarray(h.n_parents),
        "selected": mask,
    })
    df = _with_enrichment(df, table)
    names = table.meta.get("term_names") if isinstance(table.meta.get("term_names"), dict) else None
    if names:
        df.insert(1, "name", [names.get(f, "") for f in df["feature"]])
    if isinstance(table.meta.get("features"), list):  # a table of several kinds (kg.rdf.kinds): say each one's
        df.insert(1, "kind", [kind_of(f) for f in df["feature"]])
    return df


def kind_counts(frame: pd.DataFrame) -> dict[str, list[int]]:
    """``{kind: [selected, features]}`` of a :func:`selection_frame` with a ``kind`` column (``{}`` without one).

    Examples
    --------
    >>> kind_counts(pd.DataFrame({"kind": ["types", "relations", "types"], "selected": [True, False, False]}))
    {'relations': [0, 1], 'types': [1, 2]}
    """
    if "kind" not in frame:
        return {}
    g = frame.groupby("kind")["selected"]
    return {str(k): [int(a), int(b)] for k, a, b in zip(g.sum().index, g.sum().tolist(), g.count().tolist())}


def write_selection(frame: pd.DataFrame, out: str | os.PathLike) -> dict[str, str]:
    """Write ``selection.csv`` (all features) and ``selected_features.csv`` (the selected) into ``out``.

    Both are sorted with the selected features first, then by decreasing score (stable);
    ``selected_features.csv`` has no ``selected`` column.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`selection_frame`.
    out : str or os.PathLike
        The folder (created when missing).

    Returns
    -------
    dict
        Role (``selection``, ``selected``) -> file name.

    Examples
    --------
    >>> import tempfile
    >>> f = pd.DataFrame({"feature": ["x", "y"], "score": [0.1, 0.5], "selected": [True, False]})
    >>> d = tempfile.mkdtemp()
    >>> write_selection(f, d)["selected"], pd.read_csv(f"{d}/selection.csv")["feature"].tolist()
    ('selected_features.csv', ['x', 'y'])
    """
    out = Path(out)
    files = {"selection": "selection.csv", "selected": "selected_features.csv"}
    df = frame.sort_values(["selected", "score"], ascending=[False, False], kind="stable")
    atomic_write(out / files["selection"], lambda t: df.to_csv(t, index=False))
    chosen = df[df["selected"]].drop(columns=["selected"])
    atomic_write(out / files["selected"], lambda t: chosen.to_csv(t, index=False))
    return files


def read_selected(path: str | os.PathLike) -> list[str]:
    """The feature ids of a ``selected_features.csv``, in the file's order.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    list of str

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.csv"
    >>> _ = p.write_text("feature,score\\nGO:0000001,0.5\\n")
    >>> read_selected(p)
    ['GO:0000001']
    """
    return pd.read_csv(path, dtype={"feature": str})["feature"].astype(str).tolist()
