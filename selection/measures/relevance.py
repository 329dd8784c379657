"""Relevance of binary features to the class, for all features at once from sparse counts.

The measures of Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces*
(Discovery Science 2014) and of the methods it compares with:

- information gain (SHSEL, SIG, TSEL IG, HillClimbing's baseline) and the absolute correlation
  with the class (SC); SHSEL's similarity of a child and a parent, by IG difference or by the
  Pearson correlation of the two columns (:func:`pair_correlation`, :func:`edge_correlation`);
- gain ratio (GreedyTopDown, Lu et al. 2013), lift and the chi-square test (TSEL, Jeong &
  Myaeng 2013).

Every measure starts from one sparse product, ``X.T @ Y_onehot`` (feature x class counts of
the instances where the feature is 1, :class:`ClassCounts`); the counts where it is 0 follow
by subtraction. No Python loop runs over features. :func:`feature_relevance` looks a measure
up by the name the selectors' ``measure`` parameters use.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import (
    chdtrc,  # the chi-square survival function as a plain ufunc
)

from kg.hierarchy import binary_csr

__all__ = [
    "ClassCounts",
    "class_counts",
    "entropy",
    "information_gain",
    "class_correlation",
    "pair_cooccurrence",
    "pair_correlation",
    "pair_information_gain_similarity",
    "split_information",
    "gain_ratio",
    "lift",
    "chi_square",
    "chi_square_pvalue",
    "edge_cooccurrence",
    "edge_correlation",
    "MEASURES",
    "feature_relevance",
]


def _csr(X) -> sp.csr_matrix:
    if sp.issparse(X):
        return sp.csr_matrix(X)
    return sp.csr_matrix(np.asarray(X))


class ClassCounts:
    """Counts of a binary table against class labels, the input of every measure here.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
        Binary table; any nonzero value counts as 1.
    y : array-like, shape (n_instances,)
        Class labels.

    Attributes
    ----------
    classes : ndarray
        The sorted distinct labels.
    pos : ndarray, shape (n_features, n_classes)
        Instances of each class where the feature is 1.
    neg : ndarray, shape (n_features, n_classes)
        Instances of each class where the feature is 0.
    class_totals : ndarray, shape (n_classes,)
        Instances of each class.
    n : int
        Number of instances.
    codes : ndarray, shape (n_instances,)
        Each instance's class as an index into ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> c = ClassCounts(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), ["b", "b", "a", "a"])
    >>> c.classes.tolist(), c.pos.tolist(), c.neg.tolist()
    (['a', 'b'], [[0.0, 2.0], [1.0, 1.0]], [[2.0, 0.0], [1.0, 1.0]])
    """

    def __init__(self, X, y):
        X = _csr(X)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        self.classes, codes = np.unique(y, return_inverse=True)
        n, k = X.shape[0], len(self.classes)
        onehot = sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, k))
        xb = X.astype(bool).astype(np.float64)
        self.pos = np.asarray((xb.T @ onehot).todense())
        self.class_totals = np.bincount(codes, minlength=k).astype(np.float64)
        self.neg = self.class_totals[None, :] - self.pos
        self.n = n
        self.codes = codes

    @property
    def feature_totals(self) -> np.ndarray:
        """Number of instances where each feature is 1."""
        return self.pos.sum(axis=1)


def class_counts(X, y) -> ClassCounts:
    """Feature x class counts of a binary (sparse) table.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)

    Returns
    -------
    ClassCounts

    Examples
    --------
    >>> class_counts([[1, 0], [1, 1]], [0, 1]).pos.tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    return ClassCounts(X, y)


def _log_scale(base: float) -> float:
    """The factor that turns bits into units of ``base`` (1 for bits, ln 2 for nats)."""
    if not (isinstance(base, (int, float, np.floating, np.integer)) and base > 0 and base != 1):
        raise ValueError(f"base must be a positive number other than 1, got {base!r}")
    return 1.0 / float(np.log2(base))


def entropy(counts: np.ndarray, axis: int = -1, *, base: float = 2.0) -> np.ndarray:
    """Shannon entropy of count vectors along ``axis`` (bits by default); empty vectors have entropy 0.

    Parameters
    ----------
    counts : array-like of float
        Non-negative counts (need not be normalised).
    axis : int, default -1
        The axis that holds one distribution.
    base : float, default 2
        Base of the logarithm: 2 gives bits, ``numpy.e`` nats.

    Returns
    -------
    ndarray
        ``counts`` with ``axis`` removed.

    Examples
    --------
    >>> entropy([[4, 0], [1, 3], [2, 2]]).round(4).tolist()
    [0.0, 0.8113, 1.0]
    >>> round(float(entropy([2, 2], base=np.e)), 4)   # ln 2
    0.6931
    """
    scale = _log_scale(base)
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    out = terms.sum(axis=axis)
    return out if scale == 1.0 else out * scale


def information_gain(X, y, counts: ClassCounts | None = None, *, base: float = 2.0) -> np.ndarray:
    """Information gain of the class given each binary feature (bits by default).

    ``IG(f) = H(Y) - P(f=1) H(Y | f=1) - P(f=0) H(Y | f=0)``. The unit only rescales the
    values (nats = bits x ln 2); it matters where IG values are compared with a fixed number
    (SHSEL's similarity ``1 - |IG(child) - IG(parent)| >= t``).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
        Binary table (not read when ``counts`` is given).
    y : array-like, shape (n_instances,)
        Class labels (not read when ``counts`` is given).
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    base : float, default 2
        Base of the logarithm: 2 gives bits, ``numpy.e`` nats.

    Returns
    -------
    ndarray, shape (n_features,)
        Non-negative (rounding below 0 is clipped).

    Examples
    --------
    >>> import numpy as np
    >>> information_gain(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()
    [1.0, 0.0]
    >>> information_gain(np.array([[1], [1], [0], [0]]), [1, 1, 0, 0], base=np.e).round(4).tolist()
    [0.6931]
    """
    scale = _log_scale(base)
    c = counts if counts is not None else ClassCounts(X, y)
    if c.n == 0:
        return np.zeros(c.pos.shape[0])
    h = entropy(c.class_totals)
    n1 = c.pos.sum(axis=1)
    n0 = c.n - n1
    ig = np.clip(h - (n1 * entropy(c.pos) + n0 * entropy(c.neg)) / c.n, 0.0, None)
    return ig if scale == 1.0 else ig * scale


def class_correlation(X, y, counts: ClassCounts | None = None) -> np.ndarray:
    """Absolute Pearson correlation between each binary feature and the class.

    For two classes this is ``|phi|`` of the 2x2 table. For more classes it is the largest
    ``|phi|`` over the one-vs-rest indicators (a choice: Pearson correlation needs a numeric
    target, and a nominal class has no order). Constant features have correlation 0.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed (then ``X``, ``y`` are not read).

    Returns
    -------
    ndarray, shape (n_features,)
        Values in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> class_correlation(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()
    [1.0, 0.0]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    n = float(c.n)
    n1 = c.pos.sum(axis=1, keepdims=True)  # feature = 1
    ny = c.class_totals[None, :]  # class indicator = 1
    num = n * c.pos - n1 * ny
    den = np.sqrt(n1 * (n - n1) * ny * (n - ny))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, num / den, 0.0)
    if r.shape[1] == 2:
        return np.abs(r[:, 1])
    return np.abs(r).max(axis=1) if r.shape[1] else np.zeros(r.shape[0])


def pair_cooccurrence(X, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Number of instances where both feature ``a[k]`` and feature ``b[k]`` are 1, for each k.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    a, b : array of int
        Column indices of the pairs (same length).

    Returns
    -------
    ndarray of float, shape (len(a),)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> pair_cooccurrence(X, [0, 0], [1, 2]).tolist()
    [2.0, 0.0]
    """
    X = _csr(X).astype(bool).astype(np.float64)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.size == 0:
        return np.zeros(0)
    xc = X.tocsc()
    return np.asarray(xc[:, a].multiply(xc[:, b]).sum(axis=0)).ravel()


def pair_correlation(X, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation between binary features ``a[k]`` and ``b[k]``, for each pair.

    A pair where either feature is constant has correlation 0 unless both columns are
    identical, in which case it is 1 (identical columns carry the same information; SHSEL
    treats them as perfectly similar).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    a, b : array of int
        Column indices of the pairs (same length).

    Returns
    -------
    ndarray, shape (len(a),)
        Values in [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> pair_correlation(X, [0, 0], [1, 2]).round(4).tolist()
    [0.5774, -1.0]
    """
    X = _csr(X).astype(bool).astype(np.float64)
    n = float(X.shape[0])
    tot = np.asarray(X.sum(axis=0)).ravel()
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    return _binary_correlation(n, tot[a], tot[b], pair_cooccurrence(X, a, b))


def _binary_correlation(n: float, na: np.ndarray, nb: np.ndarray, both: np.ndarray) -> np.ndarray:
    """Pearson correlation of 0/1 columns from their counts (``n`` rows, ``na``/``nb`` ones,
    ``both`` ones in common); 0 for a constant column, 1 for identical columns."""
    num = n * both - na * nb
    den = np.sqrt(na * (n - na) * nb * (n - nb))
    identical = (na == nb) & (both == na)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, num / den, 0.0)
    return np.where(identical, 1.0, r)


def pair_information_gain_similarity(ig: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SHSEL's relevance similarity of two features: ``1 - |IG(a) - IG(b)|``.

    Parameters
    ----------
    ig : array of float, shape (n_features,)
        Information gain of every feature (bits).
    a, b : array of int
        Feature indices of the pairs (same length).

    Returns
    -------
    ndarray, shape (len(a),)

    Examples
    --------
    >>> import numpy as np
    >>> pair_information_gain_similarity(np.array([1.0, 0.75, 0.0]), [1, 2], [0, 0]).tolist()
    [0.75, 0.0]
    """
    ig = np.asarray(ig, dtype=np.float64)
    return 1.0 - np.abs(ig[np.asarray(a, np.int64)] - ig[np.asarray(b, np.int64)])


# ---------------------------------------------------------------------------------------------
# Further measures from the same counts (gain ratio, lift, chi-square) and a cooccurrence
# count for many (a, b) pairs that never materialises an n_instances x n_pairs product.


def split_information(X, y=None, counts: ClassCounts | None = None) -> np.ndarray:
    """Entropy (bits) of each binary feature's own 0/1 distribution (C4.5's split information).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,), optional
        Not used by the measure; accepted so every measure has the same signature.
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> split_information(np.array([[1, 1], [1, 0], [0, 0], [0, 0]]), [1, 1, 0, 0]).round(4).tolist()
    [1.0, 0.8113]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    n1 = c.pos.sum(axis=1)
    return entropy(np.stack([n1, c.n - n1], axis=1))


def gain_ratio(X, y, counts: ClassCounts | None = None) -> np.ndarray:
    """Information gain ratio: ``IG(f) / H(f)``; 0 for constant features (where both are 0).

    GreedyTopDown's measure (Lu et al. 2013).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> gain_ratio(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()
    [1.0, 0.0]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    ig = information_gain(X, y, c)
    si = split_information(X, y, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(si > 0, ig / si, 0.0)


def lift(X, y, counts: ClassCounts | None = None) -> np.ndarray:
    """Lift of each feature: ``max over classes c of P(c | f=1) / P(c)``.

    Lift > 1 means the feature makes some class more likely than it is a priori. A feature
    that is never 1 has lift 0. (Taking the maximum over classes is a choice: TSEL's lift is
    defined for one class at a time.)

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> lift(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()   # P(1|f=1) / P(1)
    [2.0, 1.0]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    n1 = c.pos.sum(axis=1, keepdims=True)
    prior = c.class_totals[None, :] / max(c.n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((n1 > 0) & (prior > 0), (c.pos / n1) / prior, 0.0)
    return ratio.max(axis=1) if ratio.shape[1] else np.zeros(ratio.shape[0])


def chi_square(X, y, counts: ClassCounts | None = None) -> np.ndarray:
    """Pearson's chi-square statistic of the 2 x k table (feature 0/1 x class), per feature.

    Unlike ``sklearn.feature_selection.chi2`` (which treats features as frequencies and uses
    only the cells where the feature is 1), both rows of the contingency table count. A
    constant feature has statistic 0.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> chi_square(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()
    [4.0, 0.0]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    n = float(c.n)
    if n == 0:
        return np.zeros(c.pos.shape[0])
    n1 = c.pos.sum(axis=1, keepdims=True)
    n0 = n - n1
    ny = c.class_totals[None, :]
    stat = np.zeros(c.pos.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for obs, rows in ((c.pos, n1), (c.neg, n0)):
            exp = rows * ny / n
            stat += np.where(exp > 0, (obs - exp) ** 2 / exp, 0.0).sum(axis=1)
    return stat


def chi_square_pvalue(X, y, counts: ClassCounts | None = None, *, stat: np.ndarray | None = None) -> np.ndarray:
    """p-value of :func:`chi_square` (``k - 1`` degrees of freedom for ``k`` classes).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    stat : ndarray, optional
        The statistic when already computed (then only the number of classes is read).

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> chi_square_pvalue(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).round(4).tolist()
    [0.0455, 1.0]
    """
    c = counts if counts is not None else ClassCounts(X, y)
    dof = max(len(c.classes) - 1, 1)
    return chdtrc(dof, chi_square(X, y, c) if stat is None else stat)


def edge_cooccurrence(X, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Same as :func:`pair_cooccurrence`, with memory linear in the ones of the ``a`` columns.

    For every one of column ``a[k]`` it looks up whether column ``b[k]`` is 1 in the same row
    (binary search in the sorted ``row * n_features + column`` keys of ``X``). For hierarchy
    edges pass the child as ``a``: children are the rarer features.

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    a, b : array of int
        Column indices of the pairs (same length).

    Returns
    -------
    ndarray of float, shape (len(a),)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> edge_cooccurrence(X, [0, 0], [1, 2]).tolist()
    [2.0, 0.0]
    """
    X = binary_csr(X, dtype=np.float64)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.size == 0:
        return np.zeros(0)
    m = X.shape[1]
    rows_of_entry = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr))
    keys = rows_of_entry * m + X.indices.astype(np.int64)  # sorted: csr rows, sorted columns
    xc = X.tocsc()
    xc.sort_indices()
    # pairs sorted by a so that the rows of each a column are one contiguous slice
    lens = np.diff(xc.indptr)[a]
    starts = xc.indptr[a]
    total = int(lens.sum())
    if total == 0:
        return np.zeros(a.size)
    pair_of = np.repeat(np.arange(a.size, dtype=np.int64), lens)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    rows = xc.indices[np.repeat(starts, lens) + offsets].astype(np.int64)
    q = rows * m + b[pair_of]
    pos = np.searchsorted(keys, q)
    hit = (pos < keys.size) & (keys[np.minimum(pos, keys.size - 1)] == q)
    return np.bincount(pair_of[hit], minlength=a.size).astype(np.float64)


def edge_correlation(X, a: np.ndarray, b: np.ndarray, cooccurrence: np.ndarray | None = None) -> np.ndarray:
    """Same values as :func:`pair_correlation`, computed with :func:`edge_cooccurrence`.

    ``cooccurrence`` may give the co-occurrence counts when they are already known (for a
    table closed under a hierarchy, a child's count for each child -> parent edge).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    a, b : array of int
        Column indices of the pairs (same length); for hierarchy edges, ``a`` the children.
    cooccurrence : array of float, optional
        ``pair_cooccurrence(X, a, b)`` when already known.

    Returns
    -------
    ndarray, shape (len(a),)
        Values in [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> edge_correlation(X, [0, 0], [1, 2]).round(4).tolist()
    [0.5774, -1.0]
    """
    X = binary_csr(X, dtype=np.float64)
    n = float(X.shape[0])
    tot = np.bincount(X.indices, minlength=X.shape[1]).astype(np.float64)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if cooccurrence is None:
        both = edge_cooccurrence(X, a, b)
    else:
        both = np.asarray(cooccurrence, dtype=np.float64)
    return _binary_correlation(n, tot[a], tot[b], both)


#: The measures :func:`feature_relevance` knows, by the names the selectors' ``measure`` takes.
MEASURES = {
    "ig": information_gain,
    "correlation": class_correlation,
    "lift": lift,
    "gain_ratio": gain_ratio,
    "chi2": chi_square,
}


def feature_relevance(name: str, X, y, counts: ClassCounts | None = None, *,
                      allowed: tuple[str, ...] | None = None) -> np.ndarray:
    """The relevance measure called ``name`` (a key of :data:`MEASURES`) of every feature.

    Parameters
    ----------
    name : str
        ``"ig"``, ``"correlation"``, ``"lift"``, ``"gain_ratio"`` or ``"chi2"``.
    X : array-like or scipy sparse matrix, shape (n_instances, n_features)
    y : array-like, shape (n_instances,)
    counts : ClassCounts, optional
        The counts of ``X`` and ``y`` when already computed.
    allowed : tuple of str, optional
        The names a caller accepts (default: all); another name raises a ``ValueError``
        that lists them.

    Returns
    -------
    ndarray, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> feature_relevance("lift", np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), [1, 1, 0, 0]).tolist()
    [2.0, 1.0]
    >>> feature_relevance("lift", [[1]], [1], allowed=("ig",))
    Traceback (most recent call last):
    ...
    ValueError: measure must be one of 'ig', got 'lift'
    """
    allowed = tuple(MEASURES) if allowed is None else allowed
    if name not in allowed:
        raise ValueError(f"measure must be one of {', '.join(map(repr, allowed))}, got {name!r}")
    return MEASURES[name](X, y, counts)
