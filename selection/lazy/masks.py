"""Per-instance feature masks as the lazy classifiers take them, and their mean size.

A lazy selector (:mod:`selection.lazy.selectors`) gives a sparse boolean mask, one row per test
instance; an eager selector a single support. :func:`as_mask` checks and normalises either for
the lazy classifiers; :func:`mean_fraction_selected` is the "% of features selected" of the RPV
paper's Table 10.

Examples
--------
>>> mean_fraction_selected([True, False, False, False])
0.25
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kg.hierarchy import binary_csr

__all__ = ["as_mask", "mean_fraction_selected"]


def mean_fraction_selected(mask, n_features: int | None = None) -> float:
    """Mean fraction of features selected per instance of a mask (2-D) or support (1-D).

    Parameters
    ----------
    mask : sparse matrix, 2-D or 1-D array-like of bool
        Per-instance masks (n_instances x n_features) or one support over the features.
    n_features : int, optional
        The number of features (default: the mask's width).

    Returns
    -------
    float

    Examples
    --------
    >>> mean_fraction_selected([[True, False], [True, True]])
    0.75
    """
    if sp.issparse(mask):
        n = mask.shape[1] if n_features is None else n_features
        return float(mask.getnnz() / (mask.shape[0] * n)) if mask.shape[0] and n else 0.0
    m = np.asarray(mask, dtype=bool)
    n = m.shape[-1] if n_features is None else n_features
    return float(m.mean()) if m.ndim == 1 else float(m.sum() / (m.shape[0] * n))


def as_mask(mask, n_rows: int, n_features: int):
    """Normalise a mask for the lazy classifiers: ``None``, a 1-D bool support, or a csr bool matrix.

    Parameters
    ----------
    mask : None, 1-D array-like, 2-D array-like or sparse matrix
        ``None`` (every feature), an eager support (n_features,) or per-instance masks.
    n_rows, n_features : int
        The shape of the test data the mask belongs to (checked).

    Returns
    -------
    None, ndarray of bool (n_features,) or scipy.sparse.csr_matrix of bool (n_rows x n_features)

    Examples
    --------
    >>> as_mask([1, 0, 1], 5, 3).tolist()
    [True, False, True]
    >>> as_mask([[1, 0, 1]], 1, 3).nnz
    2
    """
    if mask is None:
        return None
    if sp.issparse(mask):
        if mask.shape != (n_rows, n_features):
            raise ValueError(f"mask has shape {mask.shape}, expected ({n_rows}, {n_features})")
        return binary_csr(mask, dtype=bool)
    m = np.asarray(mask)
    if m.ndim == 1:
        if m.shape[0] != n_features:
            raise ValueError(f"support mask has {m.shape[0]} entries, expected {n_features} features")
        return m.astype(bool)
    if m.shape != (n_rows, n_features):
        raise ValueError(f"mask has shape {m.shape}, expected ({n_rows}, {n_features})")
    return binary_csr(m, dtype=bool)
