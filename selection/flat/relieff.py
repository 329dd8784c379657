"""ReliefF (Kononenko 1994) as WEKA's ``ReliefFAttributeEval`` computes it, for binary sparse and
real-valued dense data.

Weight of feature ``f``: the mean over the sampled instances ``i`` of
``- mean_{h in hits(i)} diff(f, i, h) + sum_{c != y_i} P(c)/(1 - P(y_i)) mean_{m in misses_c(i)} diff(f, i, m)``,
with ``diff(f, i, j) = |x_if - x_jf| / range_f`` (features scaled to [0, 1]; 0/1 features are
unchanged) and the ``n_neighbors`` nearest hits and nearest misses of every other class by the L1
distance of the scaled features (the Hamming distance on 0/1 data, WEKA's distance on nominal
attributes). An instance is never its own neighbour; ties in distance go to the earlier
instance; with fewer candidates than ``n_neighbors`` all of them are used. ``n_iter`` instances
are sampled (seeded) when given and smaller than the data; by default every instance is used
(WEKA's default).

All weights come from one sparse neighbour-coefficient matrix ``W`` (hits negative, misses
positive): ``w_f = sum_ij W_ij |x_if - x_jf|``. On 0/1 data ``|a - b| = a + b - 2ab`` turns that
into three sparse products, ``w = X^T s + X^T (1^T W) - 2 colsum(X o (W X))`` with ``s = W 1``,
and the distances are ``nnz_i + nnz_j - 2 x_i . x_j`` (exact integers), so nothing is densified;
real values take the differences of the neighbour pairs explicitly.

:func:`relieff_scores` is the measure; :class:`ReliefF` the flat selector of the RPV paper's
comparison (threshold 0.01), which the ``hifsrr2017`` protocol also applies per class-tree node
(:mod:`selection.class_hierarchy.evaluation`, at most 1,000 sampled instances).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances

from kg.sklearn_compat import Interval
from selection.base import BINARIZE, HierarchicalSelector

__all__ = ["relieff_scores", "neighbour_weights", "ReliefF"]

_PAIR_CELLS = 4_000_000  # neighbour pairs x features differenced at once (real-valued data)


def _unit_range(X):
    """``X`` scaled to [0, 1] per column, and whether it is 0/1 data (then as csr, unchanged).

    Only the range matters to the differences, so sparse input is divided by it, not shifted.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if np.isin(X.data, (0.0, 1.0)).all():
            return X, True
        span = (X.max(axis=0) - X.min(axis=0)).toarray().ravel()  # 1 x features: one row, not the table
        span[span == 0] = 1.0
        return sp.csr_matrix(X @ sp.diags(1.0 / span)), False
    X = np.asarray(X, dtype=np.float64)
    if np.isin(X, (0.0, 1.0)).all():
        return sp.csr_matrix(X), True
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    span[span == 0] = 1.0
    return (X - lo) / span, False


def _distances(Xs, rows: np.ndarray, binary: bool, gram) -> np.ndarray:
    """L1 distances (n_rows x n) of the instances ``rows`` to every instance."""
    if binary:
        nnz, XT = gram
        g = np.asarray((Xs[rows] @ XT).todense()).astype(np.int64)  # a block of rows x instances, bounded by the caller
        return (nnz[rows, None] + nnz[None, :] - 2 * g).astype(np.float64)
    return pairwise_distances(Xs[rows], Xs, metric="manhattan")


def _nearest(d: np.ndarray, k: int) -> np.ndarray:
    """Mask of the ``k`` smallest entries of every row of ``d`` (ties: lower column)."""
    if k >= d.shape[1]:
        return np.ones(d.shape, dtype=bool)
    kth = np.partition(d, k - 1, axis=1)[:, k - 1:k]
    less = d < kth
    tie = d == kth
    return less | (tie & (np.cumsum(tie, axis=1) <= k - less.sum(axis=1, keepdims=True)))


def neighbour_weights(X, y, *, n_neighbors: int = 10, sample=None, block_size: int = 2048) -> sp.csr_matrix:
    """The coefficient matrix ``W`` (n x n) of ReliefF: hits negative, misses positive.

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
        Scaled to [0, 1] per column first (0/1 data is unchanged).
    y : array (n_samples,)
    n_neighbors : int
        Nearest hits, and nearest misses per other class, of every sampled instance.
    sample : int array or None
        The instances whose neighbours are found (rows of ``W``); all by default.
    block_size : int
        Rows of the distance matrix computed at once.

    Returns
    -------
    scipy.sparse.csr_matrix (n_samples, n_samples)
        Row ``i`` holds ``-1 / (hits found)`` at its hits and ``P(c) / (1 - P(y_i)) / (misses
        found)`` at its misses of class ``c``, all divided by the number of sampled instances.

    Examples
    --------
    >>> W = neighbour_weights(np.array([[0, 0], [0, 1], [1, 1]]), [0, 0, 1], n_neighbors=1)
    >>> (W.toarray() * 3).round(3).tolist()
    [[0.0, -1.0, 1.0], [-1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    Xs, binary = _unit_range(X)
    return _coefficients(Xs, binary, *_labels(y), n_neighbors, sample, block_size)


def _labels(y):
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return codes.ravel(), classes.size


def _coefficients(Xs, binary, codes, n_classes, n_neighbors, sample, block_size) -> sp.csr_matrix:
    n = Xs.shape[0]
    k = int(n_neighbors)
    if k < 1:
        raise ValueError(f"n_neighbors must be >= 1, got {n_neighbors!r}")
    sample = np.arange(n) if sample is None else np.asarray(sample, dtype=np.int64)
    prior = np.bincount(codes, minlength=n_classes) / n
    members = [np.flatnonzero(codes == c) for c in range(n_classes)]
    gram = (np.diff(Xs.indptr).astype(np.int64), Xs.T.tocsr()) if binary else None
    rows, cols, vals = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
    for s in range(0, sample.size, int(block_size)):
        r = sample[s:s + int(block_size)]
        d = _distances(Xs, r, binary, gram)
        ci = codes[r]
        for c, idx in enumerate(members):
            if idx.size == 0:
                continue
            own = idx[None, :] == r[:, None]
            sub = np.where(own, np.inf, d[:, idx])  # never its own neighbour
            take = _nearest(sub, min(k, idx.size)) & ~own
            found = take.sum(axis=1)
            coef = np.where(ci == c, -1.0, prior[c] / np.maximum(1e-12, 1.0 - prior[ci]))
            coef = np.where(found > 0, coef / np.maximum(found, 1), 0.0)
            i, j = np.nonzero(take)
            rows.append(r[i])
            cols.append(idx[j])
            vals.append(coef[i])
    W = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    return W / sample.size


def _weighted_differences(Xs, W: sp.csr_matrix, binary: bool) -> np.ndarray:
    """``w_f = sum_ij W_ij |x_if - x_jf|``."""
    if binary:
        s = np.asarray(W.sum(axis=1)).ravel()
        WX = sp.csr_matrix(W @ Xs)
        colW = np.asarray(W.sum(axis=0)).ravel()
        w = Xs.T @ s + Xs.T @ colW - 2.0 * np.asarray(WX.multiply(Xs).sum(axis=0)).ravel()
        return np.asarray(w).ravel()
    C = W.tocoo()
    w = np.zeros(Xs.shape[1])
    step = max(1, _PAIR_CELLS // max(Xs.shape[1], 1))
    for a in range(0, C.nnz, step):
        i, j, v = C.row[a:a + step], C.col[a:a + step], C.data[a:a + step]
        diff = abs(Xs[i] - Xs[j])
        w += np.asarray(diff.T @ v).ravel()
    return w


def relieff_scores(X, y, *, n_neighbors: int = 10, n_iter: int | None = None, random_state=None,
                   block_size: int = 2048) -> np.ndarray:
    """ReliefF weight of every column of ``X`` (higher = more relevant); see the module docstring.

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
        Binary (kept sparse) or real-valued.
    y : array (n_samples,)
        Class labels.
    n_neighbors : int
        Nearest hits, and nearest misses per other class (WEKA: 10).
    n_iter : int or None
        Instances sampled without replacement (sorted) when smaller than ``n_samples``; None: all.
    random_state : int, Generator or None
        Seed of the sample.
    block_size : int
        Rows of the distance matrix computed at once.

    Returns
    -------
    ndarray (n_features,)

    Examples
    --------
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> relieff_scores(X, [1, 1, 0, 0], n_neighbors=1).tolist()
    [1.0, 1.0, -1.0]
    """
    Xs, binary = _unit_range(X)
    codes, n_classes = _labels(y)
    n = Xs.shape[0]
    sample = None
    if n_iter is not None and n_iter < n:
        sample = np.sort(np.random.default_rng(random_state).choice(n, n_iter, replace=False))
    W = _coefficients(Xs, binary, codes, n_classes, n_neighbors, sample, block_size)
    return _weighted_differences(Xs, W, binary)


class ReliefF(HierarchicalSelector):
    """ReliefF with WEKA's defaults and the RPV paper's threshold: features with weight > 0.01.

    Every instance is sampled, ``n_neighbors=10`` nearest hits and misses, no distance weighting
    (:func:`relieff_scores`). A flat filter: it takes no hierarchy.

    Parameters
    ----------
    n_neighbors : int
        Nearest hits, and nearest misses per other class.
    threshold : float
        Keep the features whose weight is > threshold (0.01, as in the RPV paper).
    block_size : int
        Rows of the distance matrix computed at once.
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Attributes
    ----------
    scores_ : ndarray
        The ReliefF weights.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]])
    >>> ReliefF(n_neighbors=1).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, True, False]
    """

    _parameter_constraints = {"n_neighbors": [Interval(Integral, 1, None, closed="left")],
                              "threshold": [Interval(Real, None, None, closed="neither")],
                              "block_size": [Interval(Integral, 1, None, closed="left")], "binarize": BINARIZE}

    def __init__(self, *, n_neighbors=10, threshold=0.01, block_size=2048, binarize=None):
        self.n_neighbors = n_neighbors
        self.threshold = threshold
        self.block_size = block_size
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        self.scores_ = relieff_scores(X, y, n_neighbors=self.n_neighbors, block_size=self.block_size)
        self.support_ = self.scores_ > float(self.threshold)
