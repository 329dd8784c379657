"""Sparse 0/1 matrices: the one binarisation kgfs uses, and the structural size of a product."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

__all__ = ["binary_csr", "distinct", "distinct_rows", "product_nnz", "reach_upward"]


def binary_csr(m, dtype=np.int8) -> sp.csr_matrix:
    """``m`` as a canonical csr matrix whose stored values are all 1, of type ``dtype``.

    Duplicates are summed, stored zeros dropped and every other value becomes 1; arrays are
    copied only when something has to change. This is the one binarisation every part of kgfs
    uses (validation of user input, with its messages, is :func:`selection.base.as_binary_csr`).

    Parameters
    ----------
    m : array-like or scipy sparse matrix
    dtype : numpy dtype
        Type of the stored ones (``np.int8`` for structure, ``np.float64`` for arithmetic,
        ``bool`` for masks).

    Returns
    -------
    scipy.sparse.csr_matrix

    Examples
    --------
    >>> import numpy as np
    >>> binary_csr(np.array([[0, 2], [3, 0]]), dtype=bool).toarray().tolist()
    [[False, True], [True, False]]
    """
    m = sp.csr_matrix(m)
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()
    if m.nnz and not m.data.all():
        m = m.copy()
        m.eliminate_zeros()
    if m.dtype != np.dtype(dtype) or (m.nnz and not (m.data == 1).all()):
        m = sp.csr_matrix((np.ones(m.nnz, dtype=dtype), m.indices, m.indptr), shape=m.shape)
        m.has_canonical_format = True
    return m


def product_nnz(a: sp.csr_matrix, b: sp.csr_matrix) -> int:
    """Number of structural nonzeros of ``a @ b`` for csr ``a``, ``b`` without computing values.

    Uses scipy's own symbolic pass (``csr_matmat_maxnnz``, the first half of every scipy sparse
    product: it marks the distinct columns of each result row), about 3x cheaper than the full
    product. That routine is not public API, so any failure to call it falls back to the
    product. With non-negative values (0/1 tables) no entry can cancel, so both agree.
    """
    try:
        from scipy.sparse import _sparsetools

        idx = np.int64 if max(a.nnz, b.nnz, *a.shape, *b.shape) >= np.iinfo(np.int32).max else np.int32
        return int(_sparsetools.csr_matmat_maxnnz(
            a.shape[0], b.shape[1],
            a.indptr.astype(idx, copy=False), a.indices.astype(idx, copy=False),
            b.indptr.astype(idx, copy=False), b.indices.astype(idx, copy=False),
        ))
    except (ImportError, AttributeError, TypeError, ValueError):  # pragma: no cover - scipy internals moved
        return int((a @ b).nnz)


def distinct(values) -> np.ndarray:
    """The sorted distinct values of a 1-D integer array, by one sort.

    NumPy 2.3+ answers a plain ``np.unique(a)`` from a hash table, which measured here (NumPy 2.4, 3M int64
    with millions of distinct values) 4.0 s against 0.2 s for a sort: this is the sort.

    Examples
    --------
    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    a = np.sort(np.asarray(values).ravel())
    if a.size < 2:
        return a
    keep = np.empty(a.size, bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def distinct_rows(rows, return_inverse: bool = False):
    """The sorted distinct rows of a 2-D array of non-negative integers (as ``np.unique(rows, axis=0)``), each row
    read as one int64 key when the columns' ranges allow it (a sort of numbers, not of byte strings: about 10x
    faster on millions of rows), else by NumPy's row sort.

    Examples
    --------
    >>> distinct_rows(np.array([[2, 1], [0, 5], [2, 1]])).tolist()
    [[0, 5], [2, 1]]
    >>> distinct_rows(np.array([[2, 1], [0, 5], [2, 1]]), return_inverse=True)[1].tolist()
    [1, 0, 1]
    """
    a = np.asarray(rows)
    if a.ndim != 2 or not a.size or a.dtype.kind not in "iu" or a.min() < 0:
        return np.unique(a, axis=0, return_inverse=return_inverse)
    spans = [int(s) + 1 for s in a.max(axis=0).tolist()]  # Python ints: their product cannot wrap
    if math.prod(spans) >= 2**63:
        return np.unique(a, axis=0, return_inverse=return_inverse)
    key = np.zeros(len(a), np.int64)
    for j, s in enumerate(spans):  # mixed radix: the keys sort as the rows do
        key = key * s + a[:, j].astype(np.int64)
    uniq, inverse = np.unique(key, return_inverse=True) if return_inverse else (distinct(key), None)
    out = np.empty((len(uniq), a.shape[1]), a.dtype)
    for j in range(a.shape[1] - 1, -1, -1):
        uniq, out[:, j] = np.divmod(uniq, spans[j])
    return (out, inverse.ravel()) if return_inverse else out


def reach_upward(start, graph) -> sp.csr_matrix:
    """Each row of ``start`` (rows x nodes, 0/1) closed upward along ``graph`` (``G[child, parent] = 1``): every
    node reached from the row's nodes, frontier by frontier. No closure of the graph is built (a graph of 2M
    nodes with dozens of ancestors each would hold 100M of them), and a cycle ends the walk, as each node is
    reached once per row.

    Examples
    --------
    >>> g = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0]]))  # 0 -> 1 -> 2 -> 1 (a cycle)
    >>> reach_upward(sp.csr_matrix(np.array([[1, 0, 0], [0, 0, 1]])), g).toarray().tolist()
    [[1, 1, 1], [0, 1, 1]]
    """
    graph = binary_csr(graph, np.int32)  # a product counts paths: int8 would wrap to 0 at 256 of them
    reached = binary_csr(start, np.int32)
    frontier = reached
    while frontier.nnz:
        frontier = binary_csr(frontier @ graph, np.int32)
        frontier = binary_csr(frontier - frontier.multiply(reached), np.int32)
        reached = binary_csr(reached + frontier, np.int32)
    return reached
