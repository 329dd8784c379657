"""The comparison methods of the SHSEL paper (Ristoski & Paulheim 2014, section 5.2).

* ``sig``, ``sc`` - :class:`StandardSelector`: standard (flat) selection by information gain
  or by correlation with the class, with a threshold (swept 0..1 by the paper), or the best
  ``k`` / ``percentile``.
* ``tsel-lift``, ``tsel-ig`` - :class:`TSEL` (Jeong & Myaeng 2013): the most representative
  feature of each leaf-to-root path, then the most effective of those by chi-square.
* ``greedy-top-down`` - :class:`GreedyTopDown` (Lu et al. 2013): repeatedly take the best
  remaining feature by information gain ratio and drop its ancestors and descendants.

The path rules are exact on DAGs and never enumerate paths (:mod:`selection.measures.paths`).
"""

from __future__ import annotations

import logging
import math
import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from selection.base import HierarchicalSelector
from selection.hierarchical.shsel import THRESHOLD_GRID
from selection.measures.paths import greedy_antichain, path_argmax, strict_ranks
from selection.measures.relevance import (
    ClassCounts,
    chi_square,
    chi_square_pvalue,
    class_correlation,
    gain_ratio,
    information_gain,
    lift,
)
from selection.registry import register_selector

__all__ = ["StandardSelector", "TSEL", "GreedyTopDown", "top_k_mask"]

log = logging.getLogger(__name__)

_MEASURES = {
    "ig": information_gain,
    "correlation": class_correlation,
    "lift": lift,
    "gain_ratio": gain_ratio,
    "chi2": chi_square,
}


def _measure(name: str, allowed: tuple[str, ...], X, y, counts) -> np.ndarray:
    if name not in allowed:
        raise ValueError(f"measure must be one of {', '.join(map(repr, allowed))}, got {name!r}")
    return _MEASURES[name](X, y, counts)


def top_k_mask(scores: np.ndarray, k: int, ids: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
    """The ``k`` best of ``scores`` (restricted to ``among``); ties go to the smaller id.

    Breaking ties by feature id (not column position) keeps the result independent of the
    column order.
    """
    n = scores.size
    among = np.ones(n, bool) if among is None else among
    cand = np.flatnonzero(among)
    order = cand[np.lexsort((ids[cand], -scores[cand]))]
    out = np.zeros(n, bool)
    out[order[: max(0, int(k))]] = True
    return out


def _check_k(k, percentile, n: int, what: str = "") -> int | None:
    """The number of features a ``k`` / ``percentile`` setting keeps (None: use a threshold)."""
    if k is not None and percentile is not None:
        raise ValueError(f"give at most one of {what}k and {what}percentile")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise ValueError(f"{what}k must be a non-negative integer, got {k!r}")
        if k > n:
            raise ValueError(f"{what}k={k} is more than the {n} features to choose from")
        return int(k)
    if percentile is not None:
        if not isinstance(percentile, numbers.Real) or not 0 <= percentile <= 100:
            raise ValueError(f"{what}percentile must be in [0, 100], got {percentile!r}")
        return int(math.ceil(n * float(percentile) / 100 - 1e-9))
    return None


def _preference(scores: np.ndarray, hierarchy) -> np.ndarray:
    """Strict ranks: higher score first, then the more general node, then the smaller id."""
    ids = hierarchy.node_ids
    id_rank = np.empty(ids.size, dtype=np.int64)
    id_rank[np.argsort(ids, kind="stable")] = np.arange(ids.size)
    return strict_ranks(scores, -hierarchy.levels, -id_rank)


# ------------------------------------------------------------------------------- SIG / SC
class StandardSelector(HierarchicalSelector):
    """Standard (flat) feature selection by a relevance measure: SIG and SC of the paper.

    Keeps every feature whose (normalised) score is ``>= threshold``, or the ``k`` best, or
    the best ``percentile`` percent (rounded up). The hierarchy is ignored.

    The paper ran RapidMiner's "Weight by Information Gain / Correlation" followed by
    "Select by Weights" and swept thresholds 0..1. RapidMiner normalises weights to [0, 1]
    by default (``(w - min) / (max - min)``), which is what makes a 0..1 sweep meaningful
    for IG (raw IG values of single binary features are mostly far below 1); ``normalize``
    does the same (if all scores are equal, all normalise to 1).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Accepted for a uniform interface; not used.
    measure : {"ig", "correlation"}
        Information gain (SIG) or absolute Pearson correlation with the class (SC).
    threshold : float, default 0.5
        Used when neither ``k`` nor ``percentile`` is given.
    k : int, optional
        Keep the ``k`` best features (ties to the smaller feature id).
    percentile : float, optional
        Keep the best ``ceil(percentile% * n_features)`` features.
    normalize : bool, default True
    binarize : float or None

    Attributes
    ----------
    scores_ : ndarray, raw measure per feature
    normalized_scores_ : ndarray, the scores the threshold is compared with

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> StandardSelector(measure="ig", threshold=0.5).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, False, True]
    >>> StandardSelector(k=1).fit(X, [1, 1, 0, 0]).get_support().tolist()   # tie: smaller id
    [True, False, False]
    """

    def __init__(self, hierarchy=None, *, measure="ig", threshold=0.5, k=None, percentile=None,
                 normalize=True, binarize=None):
        self.hierarchy = hierarchy
        self.measure = measure
        self.threshold = threshold
        self.k = k
        self.percentile = percentile
        self.normalize = normalize
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        n = X.shape[1]
        keep = _check_k(self.k, self.percentile, n)
        if keep is None and (not isinstance(self.threshold, numbers.Real) or not np.isfinite(self.threshold)):
            raise ValueError(f"threshold must be a finite number, got {self.threshold!r}")
        scores = _measure(self.measure, ("ig", "correlation"), X, y, ClassCounts(X, y))
        lo, hi = scores.min(), scores.max()
        norm = (scores - lo) / (hi - lo) if (self.normalize and hi > lo) else (
            np.ones_like(scores) if self.normalize else scores)
        self.scores_ = scores
        self.normalized_scores_ = norm
        if keep is not None:
            self.support_ = top_k_mask(scores, keep, hierarchy.node_ids)
        else:
            self.support_ = norm >= float(self.threshold)

    def supports_for_thresholds(self, thresholds) -> np.ndarray:
        """Supports for many thresholds from this fit: ``(len(thresholds), n_features)`` bool.

        Row ``i`` equals ``get_support()`` of a refit with ``threshold=thresholds[i]``; with
        ``k`` or ``percentile`` set the threshold is not used, so every row is the support.
        """
        check_is_fitted(self, "support_")
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if self.k is not None or self.percentile is not None:
            return np.repeat(self.support_[None, :], t.size, axis=0)
        return self.normalized_scores_[None, :] >= t[:, None]


# ------------------------------------------------------------------------------- TSEL
class TSEL(HierarchicalSelector):
    """TSEL (Jeong & Myaeng 2013): representative features of the paths, filtered by chi-square.

    1. *Most representative*: for each leaf-to-root path, the feature with the highest
       ``measure`` (lift, or information gain for "TSEL IG"). A feature is a representative
       when it is the best of at least one path. Ties on a path go to the more general
       feature (the one closer to the roots: it covers more instances with the same score),
       then to the smaller id; with this strict order every path has exactly one
       representative, found by two minimax DPs (:func:`selection.measures.paths.path_argmax`).
    2. *Most effective*: of the representatives, those whose chi-square association with
       the class (2 x k table) is significant at ``chi2_alpha`` (p <= alpha, k - 1 degrees
       of freedom), or the ``chi2_k`` best / best ``chi2_percentile`` percent by chi-square.
       The papers do not say where the cut lies; a significance level is the usual
       chi-square cut and needs no tuning per dataset. If no representative passes the
       alpha cut, the one with the largest chi-square is kept, so the selection is never
       empty (logged). ``chi2_alpha=1.0`` keeps all representatives.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
    measure : {"lift", "ig"}
    chi2_alpha : float, default 0.05
    chi2_k : int, optional
    chi2_percentile : float, optional
    check_implication : bool or "repair", default True
        See :class:`selection.base.HierarchicalSelector`.
    binarize : float or None

    Attributes
    ----------
    scores_ : ndarray, the ``measure`` per feature
    representatives_ : ndarray of bool, the result of step 1
    chi2_ : ndarray, chi-square statistic per feature
    pvalues_ : ndarray, its p-value

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> X = np.array([[1, 0, 1]] * 4 + [[0, 1, 1]] * 4 + [[0, 0, 0]] * 4)
    >>> y = [1] * 4 + [0] * 8
    >>> TSEL(h, chi2_alpha=1.0).fit(X, y).get_feature_names_out().tolist()
    ['a', 'r']
    """

    def __init__(self, hierarchy=None, *, measure="lift", chi2_alpha=0.05, chi2_k=None,
                 chi2_percentile=None, check_implication=True, binarize=None):
        self.hierarchy = hierarchy
        self.measure = measure
        self.chi2_alpha = chi2_alpha
        self.chi2_k = chi2_k
        self.chi2_percentile = chi2_percentile
        self.check_implication = check_implication
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        if not isinstance(self.chi2_alpha, numbers.Real) or not 0 <= self.chi2_alpha <= 1:
            raise ValueError(f"chi2_alpha must be in [0, 1], got {self.chi2_alpha!r}")
        X, _ = self._check_table(X, hierarchy)
        counts = ClassCounts(X, y)
        scores = _measure(self.measure, ("lift", "ig"), X, y, counts)
        ranks = _preference(scores, hierarchy)
        reps = path_argmax(hierarchy, ranks)
        stat = chi_square(X, y, counts)
        pval = chi_square_pvalue(X, y, counts, stat=stat)
        keep = _check_k(self.chi2_k, self.chi2_percentile, int(reps.sum()), "chi2_")
        if keep is not None:
            support = top_k_mask(stat, keep, hierarchy.node_ids, among=reps)
        else:
            support = reps & (pval <= self.chi2_alpha)
            if not support.any() and reps.any():
                support = top_k_mask(stat, 1, hierarchy.node_ids, among=reps)
                log.info("TSEL: no representative is significant at alpha=%s; kept the best one",
                         self.chi2_alpha)
        self.scores_ = scores
        self.representatives_ = reps
        self.chi2_ = stat
        self.pvalues_ = pval
        self.support_ = support


# ------------------------------------------------------------------------------- GTD
class GreedyTopDown(HierarchicalSelector):
    """GreedyTopDown (Lu et al. 2013): best-first selection that drops relatives.

    The paper describes it per path: the nodes of each leaf-to-root path sorted by
    information gain ratio; repeatedly the first node is selected and its ancestors and
    descendants are removed from the sorted list. Taken per path in isolation that would
    select only the best node of each path (a path is a chain: everything on it is a
    relative), so the lists are read as one shared list over all paths (every node is on
    some path): nodes are visited in descending score; a node still available is selected
    and all its ancestors and descendants become unavailable. The selection is therefore a
    maximal antichain of the DAG (no selected feature is an ancestor of another, every other
    feature is a relative of a selected one), a mixture of levels. Ties go to the more
    general node (top-down), then to the smaller id. Computed without paths or closure
    matrices (:func:`selection.measures.paths.greedy_antichain`).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
    measure : {"gain_ratio", "ig"}, default "gain_ratio"
    check_implication : bool or "repair", default True
        See :class:`selection.base.HierarchicalSelector`.
    binarize : float or None

    Attributes
    ----------
    scores_ : ndarray, the ``measure`` per feature

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> GreedyTopDown(h).fit(X, [1, 1, 0, 0]).get_feature_names_out().tolist()
    ['a', 'b']
    """

    def __init__(self, hierarchy=None, *, measure="gain_ratio", check_implication=True, binarize=None):
        self.hierarchy = hierarchy
        self.measure = measure
        self.check_implication = check_implication
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        X, _ = self._check_table(X, hierarchy)
        scores = _measure(self.measure, ("gain_ratio", "ig"), X, y, ClassCounts(X, y))
        ranks = _preference(scores, hierarchy)
        self.scores_ = scores
        self.support_ = greedy_antichain(hierarchy, np.argsort(-ranks))


# ------------------------------------------------------------------------------- registry
def _make(cls, **fixed):
    def factory(hierarchy=None, **params):
        return cls(hierarchy, **{**fixed, **params})

    return factory


register_selector("sig", _make(StandardSelector, measure="ig"), kind="flat",
                  description="SIG: standard selection by information gain (threshold, k or percentile)",
                  defaults={"measure": "ig", "threshold": 0.5}, threshold_grid=THRESHOLD_GRID)
register_selector("sc", _make(StandardSelector, measure="correlation"), kind="flat",
                  description="SC: standard selection by correlation with the class (threshold, k or percentile)",
                  defaults={"measure": "correlation", "threshold": 0.5}, threshold_grid=THRESHOLD_GRID)
register_selector("tsel-lift", _make(TSEL, measure="lift"), kind="eager",
                  description="TSEL Lift: most representative feature per path by lift, then chi-square",
                  defaults={"measure": "lift", "chi2_alpha": 0.05})
register_selector("tsel-ig", _make(TSEL, measure="ig"), kind="eager",
                  description="TSEL IG: most representative feature per path by IG, then chi-square",
                  defaults={"measure": "ig", "chi2_alpha": 0.05})
register_selector("greedy-top-down", _make(GreedyTopDown), kind="eager",
                  description="GreedyTopDown: best gain ratio first, dropping ancestors and descendants",
                  defaults={"measure": "gain_ratio"})
