"""Correlation-based Feature Selection (Hall 1999) as WEKA runs it: ``CfsSubsetEval`` + ``BestFirst``.

WEKA's defaults: forward search from the empty set, search termination 5, open list of 5,
merit-improvement threshold 1e-5, visited-subset cache of ``n_features + 1`` entries;
symmetrical uncertainty (SU) as the correlation, with WEKA's quirks: a feature-feature SU of 0
counts as 1 (maximal redundancy) and correlations are stored as 32-bit floats; "locally
predictive" features are added afterwards. The RPV paper compares with it.

The SU of a feature against all others is one sparse product (cached), so CFS works from sparse
co-occurrence counts (``benchmarks/bench_flat.py``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from kg.sklearn_compat import Interval
from selection.base import BINARIZE, HierarchicalSelector
from selection.measures.relevance import ClassCounts, entropy

__all__ = ["CFS", "pairwise_entropies", "symmetrical_uncertainty_row"]

_SMALL = 1e-6  # WEKA's Utils.eq tolerance


def _h2(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p > 0) & (p < 1), -p * np.log2(p) - (1 - p) * np.log2(1 - p), 0.0)


def pairwise_entropies(n11: np.ndarray, n1_g: float, n1: np.ndarray, n: int):
    """``(H(g), H(f), H(g, f))`` in bits for binary feature ``g`` against all features ``f``.

    Parameters
    ----------
    n11 : ndarray (n_features,)
        Instances where both ``g`` and ``f`` are 1.
    n1_g : float
        Instances where ``g`` is 1.
    n1 : ndarray (n_features,)
        Instances where each ``f`` is 1.
    n : int
        Instances.

    Returns
    -------
    tuple of ndarray
        ``H(g)`` (a 0-d array), ``H(f)`` and ``H(g, f)`` per feature.

    Examples
    --------
    >>> hg, hf, hgf = pairwise_entropies(np.array([2.0, 1.0]), 2.0, np.array([2.0, 2.0]), 4)
    >>> float(hg), hf.tolist(), hgf.tolist()   # f0 is g itself, f1 independent of it
    (1.0, [1.0, 1.0], [1.0, 2.0])
    """
    cells = np.stack([n11, n1_g - n11, n1 - n11, n - n1_g - n1 + n11], axis=1)
    return _h2(np.array(n1_g / n)), _h2(n1 / n), entropy(cells)


def symmetrical_uncertainty_row(Xc: sp.csc_matrix, X: sp.csr_matrix, g: int, n1: np.ndarray) -> np.ndarray:
    """SU between binary feature ``g`` and every feature (0 when either entropy is 0, as WEKA).

    Parameters
    ----------
    Xc, X : sparse matrix (n_samples, n_features)
        The same 0/1 table as csc (for the column) and csr.
    g : int
        The feature.
    n1 : ndarray (n_features,)
        Column sums of ``X``.

    Returns
    -------
    ndarray (n_features,)
        ``2 I(g; f) / (H(g) + H(f))`` in [0, 1].

    Examples
    --------
    >>> X = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 0], [0, 0, 1]]))
    >>> symmetrical_uncertainty_row(X.tocsc(), X, 0, np.asarray(X.sum(axis=0)).ravel()).tolist()
    [1.0, 1.0, 0.0]
    """
    col = Xc[:, g]
    n11 = np.asarray((col.T @ X).todense()).ravel()
    hg, hf, hgf = pairwise_entropies(n11, float(n1[g]), n1, X.shape[0])
    den = hg + hf
    with np.errstate(divide="ignore", invalid="ignore"):
        su = np.where((hg > _SMALL) & (hf > _SMALL), 2.0 * (hg + hf - hgf) / den, 0.0)
    return np.clip(su, 0.0, 1.0)


def _class_su(counts: ClassCounts) -> np.ndarray:
    n = counts.n
    hc = entropy(counts.class_totals)
    n1 = counts.pos.sum(axis=1)
    hf = _h2(n1 / n)
    joint = entropy(np.concatenate([counts.pos, counts.neg], axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        su = np.where((hf > _SMALL) & (hc > _SMALL), 2.0 * (hf + hc - joint) / (hf + hc), 0.0)
    return np.clip(su, 0.0, 1.0)


def _float32(a: np.ndarray) -> np.ndarray:
    """Rounded as WEKA stores correlations."""
    return a.astype(np.float32).astype(np.float64)


class _Redundancy:
    """SU of a feature with every feature, WEKA's "0 means 1" applied, cached per feature."""

    def __init__(self, X: sp.csr_matrix):
        self.X, self.Xc = X, X.tocsc()
        self.n1 = np.asarray(X.sum(axis=0)).ravel()
        self.cache: dict[int, np.ndarray] = {}

    def __call__(self, g: int) -> np.ndarray:
        row = self.cache.get(g)
        if row is None:
            su = symmetrical_uncertainty_row(self.Xc, self.X, g, self.n1)
            self.cache[g] = row = _float32(np.where(su < _SMALL, 1.0, su))
        return row


def _best_first(rcf: np.ndarray, ff: _Redundancy, termination: int):
    """WEKA's BestFirst (forward) over CFS merits; returns ``(subset, merit, n_evaluations)``.

    The merits of all children of an open subset come from two vectors (its class-correlation
    sum and its per-feature redundancy sums), so one expansion is O(n_features) array work.
    """
    n_feat = rcf.size
    rng = np.random.default_rng(12345)
    zob = rng.integers(1, 2**63 - 1, size=n_feat, dtype=np.int64)  # subset hashes (Zobrist)
    limit = n_feat + 1  # WEKA: cacheSize (1) * numAttribs (features + class)
    visited: set[int] = {0}
    b2 = 0
    # open list entries: (merit, subset as sorted tuple, hash, class-corr sum, pair sum)
    open_list = [(0.0, (), 0, 0.0, 0.0)]
    best_merit, best = 0.0, ()
    stale, n_eval = 0, 1
    all_idx = np.arange(n_feat)
    while stale < termination and open_list:
        _, subset, h, num_s, pair_s = open_list.pop(0)
        in_s = np.zeros(n_feat, dtype=bool)
        in_s[list(subset)] = True
        red = np.zeros(n_feat)
        for g in subset:
            red += ff(g)
        cand = all_idx[~in_s]
        hashes = h ^ zob[cand]
        new = np.fromiter((int(x) not in visited for x in hashes.tolist()), bool, cand.size)
        cand, hashes = cand[new], hashes[new]
        if cand.size == 0:
            stale += 1
            continue
        num = num_s + rcf[cand]
        pair = pair_s + red[cand]
        den = np.abs(len(subset) + 1 + 2.0 * pair)
        with np.errstate(divide="ignore", invalid="ignore"):
            merit = np.where(den > 0, np.abs(num / np.sqrt(den)), 0.0)
        n_eval += cand.size
        improved = False
        for j in np.flatnonzero(merit - best_merit > 1e-5).tolist():  # sequential, as WEKA
            if merit[j] - best_merit > 1e-5:
                best_merit, best, improved = float(merit[j]), tuple(sorted(subset + (int(cand[j]),))), True
        for x in hashes.tolist():  # visited cache with WEKA's periodic reset
            if b2 > limit:
                visited = set()
                b2 = 0
            visited.add(int(x))
            b2 += 1
        # open list: stable top entries of (old entries, new children in index order)
        top = np.argsort(-merit, kind="stable")[:termination]
        children = [(float(merit[j]), tuple(sorted(subset + (int(cand[j]),))), int(hashes[j]), float(num[j]),
                     float(pair[j])) for j in top.tolist()]
        merged = open_list + children
        order = sorted(range(len(merged)), key=lambda i: -merged[i][0])  # Python sort is stable
        open_list = [merged[i] for i in order[:termination]]
        stale = 0 if improved else stale + 1
    return best, best_merit, n_eval


def _locally_predictive(group: np.ndarray, rcf: np.ndarray, ff: _Redundancy) -> np.ndarray:
    """WEKA's addition after the search: by decreasing class correlation, a feature joins when
    no member correlates with it more than it correlates with the class."""
    group = group.copy()
    maxcorr = np.full(rcf.size, -np.inf)
    for g in np.flatnonzero(group).tolist():
        maxcorr = np.maximum(maxcorr, ff(g))
    for j in np.argsort(-rcf, kind="stable").tolist():
        if group[j]:
            continue
        if not group.any() or maxcorr[j] <= rcf[j]:
            group[j] = True
            maxcorr = np.maximum(maxcorr, ff(j))
    return group


class CFS(HierarchicalSelector):
    """Correlation-based Feature Selection with best-first search (WEKA defaults).

    Merit of a subset ``S``: ``sum_{f in S} SU(f, C) / sqrt(|S| + 2 sum_{f<g in S} SU(f, g))``.
    The search expands the best open subset by every feature not in it (see the module
    docstring for WEKA's details). A flat filter: it takes no hierarchy.

    Parameters
    ----------
    search_termination : int
        Non-improving expansions before stopping (WEKA: 5); also the open list's length.
    locally_predictive : bool
        Add locally predictive features after the search (WEKA: True).
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Attributes
    ----------
    merit_ : float
        Merit of the subset found by the search.
    search_subset_ : int ndarray
        That subset (before the locally predictive features).
    class_correlation_ : ndarray
        SU of each feature with the class (also ``scores_``).
    n_evaluations_ : int
        Subsets evaluated.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> cfs = CFS().fit(X, [1, 1, 0, 0])
    >>> cfs.search_subset_.tolist()   # best first finds {0}; its complement 1 is redundant
    [0]
    >>> cfs.get_support().tolist()    # ...but "locally predictive": SU(1, C) = 1 is not > SU(0, 1) = 1
    [True, True, False]
    """

    _parameter_constraints = {"search_termination": [Interval(Integral, 1, None, closed="left")],
                              "locally_predictive": ["boolean"], "binarize": BINARIZE}

    def __init__(self, *, search_termination=5, locally_predictive=True, binarize=None):
        self.search_termination = search_termination
        self.locally_predictive = locally_predictive
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        rcf = _float32(_class_su(ClassCounts(X, y)))
        ff = _Redundancy(X)
        best, self.merit_, self.n_evaluations_ = _best_first(rcf, ff, int(self.search_termination))
        group = np.zeros(X.shape[1], dtype=bool)
        group[list(best)] = True
        if self.locally_predictive:
            group = _locally_predictive(group, rcf, ff)
        self.search_subset_ = np.array(best, dtype=np.int64)
        self.class_correlation_ = self.scores_ = rcf
        self.support_ = group
