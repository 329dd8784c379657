"""SHSEL: feature selection in hierarchical feature spaces.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science
2014, section 4, Algorithms 1 and 2).

Two steps, both stated in the paper per leaf-to-root path and computed here exactly on DAGs
without enumerating paths (see :mod:`selection.measures.paths`):

1. *Initial selection* (Algorithm 1): a feature is dropped when its relevance is similar to
   that of one of its direct parents (``similarity >= threshold``): the more general feature
   carries the same information, so the more specific one is redundant.
2. *Pruning* (Algorithm 2): of the features left, keep those whose information gain reaches
   the average information gain of the remaining features on a leaf-to-root path through
   them.

Registered as ``shsel-ig``, ``shsel-c`` (initial selection only) and ``shsel-ig-prune``,
``shsel-c-prune`` (both steps), the SHSEL paper's variants (the ``shsel2014`` protocol's), and
``shsel-rpv``: SHSEL as da Silva, Plastino & Freitas, *Prioritizing positive feature values*
(Applied Intelligence 2020, sections 3 and 5.3.2) describe and ran it, the ``rpv2020``
protocol's: IG similarity with t = 0.99, then "for each path in the hierarchy the features
whose relevance is higher than the average relevance of features in that path" are kept:
``prune_compare=">"`` and ``path_rule="all"`` (a feature must pass on every path it lies on,
which is also what Algorithm 2's loop does literally: it removes a feature below the average
of any path; the SHSEL paper's prose, "sufficient ... on at least one of the paths", is
``"any"``).

Two choices the papers leave open change results, so they are parameters:

- ``ig_unit``: information gain in bits or nats. The similarity ``1 - |IG(child) - IG(parent)|``
  is compared with a fixed threshold, so the unit changes which features are merged (0.99 in
  nats is 0.985573 in bits); pruning compares IG with averages and does not depend on it.
  Default ``"bits"``: of the papers' figures only the RPV paper's Table 10 (SHSEL at
  t = 0.99) depends on the unit, and its closest configuration uses bits. Mean absolute
  difference from the SHSEL column over the 12 GO datasets (10 folds, 2014 GO / registry
  hierarchy): RPV paper's pruning (``">"``, ``"all"``) bits 0.9 / 1.3 points, nats 2.8 / 2.5;
  SHSEL paper's pruning (``">="``, ``"any"``) bits 7.5 / 4.7, nats 3.5 / 2.1. WEKA, the RPV
  authors' toolkit, computes IG in bits; the Python peer scihfs uses nats (with
  ``ig_unit="nats"`` kgfs selects what scihfs selects).
- ``prune_compare``: ``">="`` keeps a feature equal to a path's average (Algorithm 2 removes
  only ``IG < avg``, so a path of equally relevant features, e.g. all with IG 0, is kept
  whole); ``">"`` keeps only features above the average, as the RPV paper describes SHSEL.
"""

from __future__ import annotations

import logging
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from kg.hierarchy import FeatureHierarchy, binary_csr
from kg.sklearn_compat import Interval, StrOptions
from selection.base import BINARIZE, CHECK_IMPLICATION, HIERARCHY, HierarchicalSelector, violation_cells
from selection.measures.paths import path_mean_rule
from selection.measures.relevance import ClassCounts, edge_correlation, information_gain

__all__ = ["SHSEL", "initial_selection", "prune_selection", "edge_cooccurrence_via_violations", "THRESHOLD_GRID"]

log = logging.getLogger(__name__)

#: The paper sweeps every threshold from 0 to 1 in steps of 0.01.
THRESHOLD_GRID = tuple(round(i / 100, 2) for i in range(101))


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each pair (vectorised)."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    return np.repeat(starts.astype(np.int64), lens) + offsets


def edge_cooccurrence_via_violations(X, hierarchy: FeatureHierarchy, diff: sp.csr_matrix | None = None) -> np.ndarray:
    """Co-occurrence of child and parent for every edge of ``hierarchy.edges``.

    ``cooc(c, p) = count(c) - #rows with c and without p``; the second term comes from the
    violation cells only, so on a closed (or nearly closed) table this costs one sparse
    product instead of one lookup per one of every child column.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_nodes)
        Binary table over the hierarchy's nodes.
    hierarchy : FeatureHierarchy
    diff : scipy.sparse.csr_matrix, optional
        :func:`selection.base.violation_cells` of ``X`` when already computed.

    Returns
    -------
    ndarray of float, shape (n_edges,)
        In the order of ``hierarchy.edges``.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> X = np.array([[1, 0, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])   # row 0: a without r
    >>> edge_cooccurrence_via_violations(X, h).tolist()   # edges a->r, b->r
    [1.0, 1.0]
    """
    X = binary_csr(X, dtype=np.float64)
    n, m = X.shape
    child, parent = hierarchy.edges
    counts = np.bincount(X.indices, minlength=m).astype(np.float64)[child]
    diff = violation_cells(X, hierarchy) if diff is None else diff
    if diff.nnz == 0:
        return counts
    coo = diff.tocoo()
    cm = hierarchy.child_matrix
    lens = np.diff(cm.indptr)[coo.col]
    rows = np.repeat(coo.row.astype(np.int64), lens)
    pars = np.repeat(coo.col.astype(np.int64), lens)
    kids = cm.indices[_ranges(cm.indptr[coo.col], lens)].astype(np.int64)
    xkeys = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr)) * m + X.indices
    q = rows * m + kids
    pos = np.minimum(np.searchsorted(xkeys, q), xkeys.size - 1)
    present = xkeys[pos] == q
    ekeys = child * m + parent  # sorted: edges come sorted by child, then parent
    e = np.searchsorted(ekeys, kids[present] * m + pars[present])
    return counts - np.bincount(e, minlength=child.size)


def initial_selection(
    n_nodes: int, child: np.ndarray, parent: np.ndarray, similarity: np.ndarray, threshold: float
) -> np.ndarray:
    """SHSEL Algorithm 1 given the similarity of every (child, parent) edge.

    A node is dropped when the similarity to at least one of its direct parents is
    ``>= threshold`` (the algorithm's ``break`` after the first similar parent). Roots are
    never dropped. Every node is compared with its parents in the *original* hierarchy:
    the algorithm walks upward from the leaves and every node is reached (its parents are
    added to the work list whether it was dropped or not), and comparing with the original
    parents makes the result independent of the order in which the list is processed (the
    paper's "paths are updated accordingly" would otherwise depend on it). In a chain of
    mutually similar features only the top one survives: "features from as high as
    possible levels of the hierarchy".

    Parameters
    ----------
    n_nodes : int
    child, parent : array of int, shape (n_edges,)
        The edges (``hierarchy.edges``).
    similarity : array of float, shape (n_edges,)
        Similarity of each edge's child and parent.
    threshold : float
        Similarity at or above which the child is dropped.

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
        The nodes kept.

    Examples
    --------
    >>> import numpy as np
    >>> initial_selection(3, np.array([0, 1]), np.array([2, 2]), np.array([0.5, 0.995]), 0.99).tolist()
    [True, False, True]
    """
    drop = np.zeros(n_nodes, dtype=bool)
    hit = np.asarray(similarity, dtype=np.float64) >= threshold
    drop[np.asarray(child, dtype=np.int64)[hit]] = True
    return ~drop


def prune_selection(
    hierarchy: FeatureHierarchy, ig: np.ndarray, selected: np.ndarray, *, path_rule: str = "any",
    compare: str = ">=",
) -> np.ndarray:
    """SHSEL Algorithm 2: keep a selected node whose IG reaches the average IG of the selected
    nodes on some (``path_rule="any"``, the paper's rule) or every (``"all"``) leaf-to-root path
    of the original hierarchy through it.

    Paths are those of the original hierarchy ("the paths ... can already be precomputed in
    the initial selection algorithm"); the average is over the features still selected on
    the path (the algorithm's input is the reduced set ``F``). All averages are taken from
    the same input set, so the result does not depend on the order of the paths. With
    ``compare=">="`` a feature equal to the average is kept (Algorithm 2 removes only
    ``IG < avg``); with ``">"`` it must be higher (the RPV paper's description).

    Parameters
    ----------
    hierarchy : FeatureHierarchy
    ig : array of float, shape (n_nodes,)
        Information gain of every node.
    selected : array of bool, shape (n_nodes,)
        The initial selection.
    path_rule : {"any", "all"}, default "any"
    compare : {">=", ">"}, default ">="

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
        The selected nodes that survive pruning.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> prune_selection(h, np.array([0.9, 0.1, 0.2]), np.array([True, True, True])).tolist()
    [True, False, True]
    """
    return path_mean_rule(hierarchy, ig, selected, mode=path_rule, compare=compare)


class SHSEL(HierarchicalSelector):
    """SHSEL hierarchical feature selection (initial selection, optionally pruning).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Child -> parent DAG over the columns of ``X`` (``None``: flat, nothing is merged).
    relevance : {"ig", "correlation"}
        Similarity of a node and a direct parent in the initial selection:
        ``"ig"``: ``1 - |IG(child) - IG(parent)|`` (IG in ``ig_unit``);
        ``"correlation"``: Pearson correlation of the two binary columns (identical columns
        count as 1, a constant column against a different one as 0).
    threshold : float, default 0.99
        Similarity at or above which the child is dropped. The paper sweeps 0..1 (step
        0.01, see :data:`THRESHOLD_GRID`) and recommends [0.99, 0.9999] for IG, > 0.6 for
        correlation.
    prune : bool, default True
        Run Algorithm 2 after Algorithm 1 (``pruneSHSEL``); ``False`` gives ``initialSHSEL``.
    path_rule : {"any", "all"}, default "any"
        A feature on several paths survives pruning when it reaches the average of at least
        one of them (``"any"``, as the paper says) or of all of them (``"all"``, stricter).
    ig_unit : {"bits", "nats"}, default "bits"
        Unit of the information gain in the similarity (see the module docstring for the
        default).
    prune_compare : {">=", ">"}, default ">="
        Pruning keeps IG ``>=`` a path's average (the SHSEL paper) or ``>`` it (the RPV paper).
    check_implication : bool or "repair", default True
        Raise on tables where a feature is 1 and a parent is 0; ``"repair"`` closes them
        upward first; ``False`` uses them as they are (see :class:`selection.base.HierarchicalSelector`).
    binarize : float or None
        See :mod:`selection.base`.

    Attributes
    ----------
    scores_ : ndarray
        Information gain of every feature (in ``ig_unit``).
    edge_similarity_ : ndarray
        Similarity of each ``hierarchy_.edges`` (child, parent) pair.
    initial_support_ : ndarray of bool
        The features left by the initial selection.
    support_ : ndarray of bool
        The selected features.
    hierarchy_ : FeatureHierarchy
        The hierarchy used (a flat one when ``hierarchy`` is None).

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("Athlete", "Person"), ("Politician", "Person")],
    ...                                 nodes=["Athlete", "Politician", "Person"])
    >>> X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> y = [1, 1, 0, 0]
    >>> sel = SHSEL(h).fit(X, y)   # Politician has Person's IG: merged into Person
    >>> sel.get_feature_names_out().tolist()   # Person is the only feature left on its path
    ['Athlete', 'Person']
    """

    #: The thresholds the protocols sweep (``shsel2014``); see :meth:`supports_for_thresholds`.
    threshold_grid = THRESHOLD_GRID

    _parameter_constraints = {
        "hierarchy": HIERARCHY,
        "relevance": [StrOptions({"ig", "correlation"})],
        "threshold": [Interval(Real, 0, 1, closed="both")],
        "prune": ["boolean"],
        "path_rule": [StrOptions({"any", "all"})],
        "ig_unit": [StrOptions({"nats", "bits"})],
        "prune_compare": [StrOptions({">=", ">"})],
        "check_implication": CHECK_IMPLICATION,
        "binarize": BINARIZE,
    }

    def __init__(
        self,
        hierarchy=None,
        *,
        relevance="ig",
        threshold=0.99,
        prune=True,
        path_rule="any",
        ig_unit="bits",
        prune_compare=">=",
        check_implication=True,
        binarize=None,
    ):
        self.hierarchy = hierarchy
        self.relevance = relevance
        self.threshold = threshold
        self.prune = prune
        self.path_rule = path_rule
        self.ig_unit = ig_unit
        self.prune_compare = prune_compare
        self.check_implication = check_implication
        self.binarize = binarize

    def _prune(self, hierarchy, ig, initial):
        return prune_selection(hierarchy, ig, initial, path_rule=self.path_rule, compare=self.prune_compare)

    def _fit(self, X, y, hierarchy):
        diff = None
        if hierarchy.n_edges and (self.check_implication or self.relevance == "correlation"):
            diff = violation_cells(X, hierarchy)
        X, diff = self._check_table(X, hierarchy, diff)
        counts = ClassCounts(X, y)
        ig = information_gain(X, y, counts, base=np.e if self.ig_unit == "nats" else 2.0)
        child, parent = hierarchy.edges
        if self.relevance == "ig":
            sim = 1.0 - np.abs(ig[child] - ig[parent])
        else:
            # on a closed table an edge's co-occurrence is the child's count; only the
            # violation cells (none after the check) change it
            cooc = edge_cooccurrence_via_violations(X, hierarchy, diff)
            sim = edge_correlation(X, child, parent, cooccurrence=cooc)
        initial = initial_selection(hierarchy.n_nodes, child, parent, sim, float(self.threshold))
        self.edge_similarity_ = sim
        self.scores_ = ig
        self.initial_support_ = initial
        self.support_ = self._prune(hierarchy, ig, initial) if self.prune else initial

    def supports_for_thresholds(self, thresholds) -> np.ndarray:
        """Supports for many thresholds from this fit.

        Row ``i`` equals ``get_support()`` of a refit with ``threshold=thresholds[i]`` (the
        relevance values and edge similarities do not depend on the threshold); pruning runs
        once per distinct initial selection. Used by threshold sweeps (``evaluate``).

        Parameters
        ----------
        thresholds : float or array of float

        Returns
        -------
        ndarray of bool, shape (len(thresholds), n_features)
        """
        check_is_fitted(self, "support_")
        h = self.hierarchy_
        child, parent = h.edges
        thresholds = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        out = np.zeros((thresholds.size, h.n_nodes), dtype=bool)
        pruned: dict[bytes, np.ndarray] = {}
        for i, t in enumerate(thresholds):
            init = initial_selection(h.n_nodes, child, parent, self.edge_similarity_, float(t))
            if not self.prune:
                out[i] = init
                continue
            key = np.packbits(init).tobytes()
            if key not in pruned:
                pruned[key] = self._prune(h, self.scores_, init)
            out[i] = pruned[key]
        return out
