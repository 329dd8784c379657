"""Discretisation of numeric features for ADHOC's chi-square tests (stage 1).

:func:`equal_frequency_bins` cuts columns into bins of equal frequency (numeric pairs tested by
chi-square); :func:`mdl_bins` is Fayyad & Irani's class-driven MDL discretisation (numeric x
symbolic pairs), standing in for Richeldi & Rossotto 1995, which the paper cites and we do not
have.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

__all__ = ["equal_frequency_bins", "mdl_bins"]


def equal_frequency_bins(X, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes (n x m, int) of each column cut into ``n_bins`` equal-frequency bins; levels used.

    Ties share a bin (bins come from average ranks), so a column with fewer distinct values
    than ``n_bins`` uses fewer levels. ``X`` is dense here (callers densify only the columns
    that need binning).

    Parameters
    ----------
    X : array (n, m)
    n_bins : int

    Returns
    -------
    codes : int ndarray (n, m)
        Bin of every value, ``0..n_bins-1``.
    levels : int ndarray (m,)
        ``n_bins`` for every column (the codes available).

    Examples
    --------
    >>> codes, levels = equal_frequency_bins(np.array([[5.0], [1], [3], [3], [9], [7]]), 3)
    >>> codes.ravel().tolist(), levels.tolist()
    ([1, 0, 0, 0, 2, 2], [3])
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    R = rankdata(X, axis=0)
    codes = np.minimum(((R - 1.0) * n_bins / n).astype(np.int64), n_bins - 1)
    return codes, np.full(X.shape[1], n_bins, dtype=np.int64)


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    tot = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tot > 0, counts / np.where(tot > 0, tot, 1), 0.0)
        h = -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0.0).sum(axis=-1)
    return h


def _mdl_cuts(x: np.ndarray, yc: np.ndarray, n_classes: int, lo: int, hi: int, out: list, depth: int) -> None:
    """Fayyad & Irani (1993): recursive entropy cut with the MDL stopping rule, on sorted data."""
    n = hi - lo
    if n < 2 or depth > 30:
        return
    seg = yc[lo:hi]
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), seg] = 1.0
    left = np.cumsum(onehot, axis=0)[:-1]              # counts left of cut after position t
    total = left[-1] + onehot[-1]
    right = total - left
    xs = x[lo:hi]
    valid = xs[1:] != xs[:-1]                           # boundaries between distinct values only
    if not valid.any():
        return
    nl = np.arange(1, n)
    ent = (nl * _entropy_rows(left) + (n - nl) * _entropy_rows(right)) / n
    ent = np.where(valid, ent, np.inf)
    t = int(np.argmin(ent))
    h = float(_entropy_rows(total[None])[0])
    gain = h - ent[t]
    k = int((total > 0).sum())
    k1, k2 = int((left[t] > 0).sum()), int((right[t] > 0).sum())
    h1, h2 = float(_entropy_rows(left[t][None])[0]), float(_entropy_rows(right[t][None])[0])
    delta = np.log2(3.0 ** k - 2) - (k * h - k1 * h1 - k2 * h2)
    if gain <= (np.log2(n - 1) + delta) / n:
        return
    _mdl_cuts(x, yc, n_classes, lo, lo + t + 1, out, depth + 1)
    out.append((xs[t] + xs[t + 1]) / 2.0)
    _mdl_cuts(x, yc, n_classes, lo + t + 1, hi, out, depth + 1)


def mdl_bins(X, y, n_bins_fallback: int = 3) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Class-driven discretisation of each numeric column (Fayyad-Irani MDL).

    A column where MDL accepts no cut falls back to ``n_bins_fallback`` equal-frequency bins
    (its cut list is then empty). One call per column; the cut search inside is vectorised.

    Parameters
    ----------
    X : array (n, m)
        Numeric columns.
    y : array (n,)
        Class labels.
    n_bins_fallback : int

    Returns
    -------
    codes : int ndarray (n, m)
    levels : int ndarray (m,)
        Number of levels per column.
    cuts : list of ndarray
        The cut points of every column.

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]] * 5)
    >>> codes, levels, cuts = mdl_bins(x, [0, 0, 0, 1, 1, 1] * 5)
    >>> cuts[0].tolist(), levels.tolist()
    ([6.5], [2])
    """
    X = np.asarray(X, dtype=np.float64)
    _, yc = np.unique(np.asarray(y), return_inverse=True)
    n_classes = int(yc.max()) + 1 if yc.size else 1
    codes = np.zeros(X.shape, dtype=np.int64)
    levels = np.zeros(X.shape[1], dtype=np.int64)
    all_cuts = []
    for j in range(X.shape[1]):
        order = np.argsort(X[:, j], kind="stable")
        cuts: list = []
        _mdl_cuts(X[order, j], yc[order], n_classes, 0, X.shape[0], cuts, 0)
        if cuts:
            c = np.asarray(cuts)
            codes[:, j] = np.searchsorted(c, X[:, j], side="right")
            levels[j] = c.size + 1
        else:
            cj, lj = equal_frequency_bins(X[:, [j]], n_bins_fallback)
            codes[:, j], levels[j] = cj[:, 0], lj[0]
        all_cuts.append(np.asarray(cuts, dtype=np.float64))
    return codes, levels, all_cuts
