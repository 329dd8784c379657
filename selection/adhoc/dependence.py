"""Stage 1 of ADHOC (Richeldi & Lanzi 1996): the first-order dependence matrix.

A features x features matrix ``D1`` with entries in [-1, 1] (signed correlations) or [0, 1]
(chi-square statistics, whose sign is undefined), and the test chosen for each pair in a code
matrix (names: :data:`TEST_NAMES`).
The paper "compares the outcome" of correlation and chi-square analysis; we do this per pair:

- numeric x numeric: the rank (Spearman; ``numeric_test="pearson"`` for Pearson) correlation
  ``r`` and, when ``nonlinear=True`` and both features take more than two values, the
  bias-corrected Cramer's V (Bergsma 2013) of the two features cut into ``n_bins``
  equal-frequency bins. The entry is ``r`` if ``|r| >= V`` (test ``spearman``/``pearson``),
  else ``V`` (test ``chi2-binned``): a non-monotone (e.g. quadratic) relation shows up through
  the chi-square statistic, a linear one keeps its sign. For two binary features Pearson's
  ``r`` is the phi coefficient, whose absolute value is Cramer's V, so the tests agree.
- symbolic x symbolic: bias-corrected Cramer's V of the contingency table (test ``cramers-v``).
- numeric x symbolic: the numeric feature is discretised by the class (Fayyad & Irani's MDL
  method, :func:`~selection.adhoc.discretize.mdl_bins`, standing in for Richeldi & Rossotto 1995, which we do not have;
  ``n_bins`` equal-frequency bins when MDL accepts no cut point, so a feature unrelated to the
  class can still be related to other features), then Cramer's V (test ``cramers-v-mdl``).
  Stuart's tau-c for ordinal pairs, which the paper mentions, is not implemented: ordinal
  symbolic features are treated as nominal.

Vectorised: all numeric correlations are one Gram matrix (sparse input stays sparse: ranks of a
sparse column keep its sparsity pattern after a shift), all contingency tables come from one
product of one-hot matrices ``Z_a^T Z_b`` and the chi-square of every pair from block sums of
``O^2 / (row x column totals)``. No Python loop runs over pairs (MDL runs once per feature).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

from selection.adhoc.discretize import equal_frequency_bins, mdl_bins

__all__ = ["TEST_NAMES", "Dependence", "dependence_matrix"]

#: Names of the per-pair test codes in :attr:`Dependence.tests`.
TEST_NAMES = ("self", "constant", "pearson", "spearman", "chi2-binned", "cramers-v", "cramers-v-mdl", "duplicate")
_T = {name: i for i, name in enumerate(TEST_NAMES)}
_EPS = 1e-12


@dataclass
class Dependence:
    """The first-order dependence matrix and the test chosen for each pair.

    Parameters
    ----------
    matrix : ndarray (m, m)
        ``matrix[i, j]`` in [-1, 1] (correlations) or [0, 1] (chi-square based).
    tests : int ndarray (m, m)
        Index into :data:`TEST_NAMES` of the test behind each entry.
    symbolic : bool ndarray (m,)
        Symbolic features.
    constant : bool ndarray (m,)
        Features without variation (their row is 0).

    Examples
    --------
    >>> d = dependence_matrix(np.array([[0.0, 1], [1, 0], [2, 1], [3, 0]]))
    >>> d.matrix.round(2).tolist(), d.test_name(0, 1)
    ([[1.0, -0.45], [-0.45, 1.0]], 'spearman')
    """

    matrix: np.ndarray
    tests: np.ndarray
    symbolic: np.ndarray
    constant: np.ndarray

    def test_name(self, i: int, j: int) -> str:
        """The name of the test behind ``matrix[i, j]``."""
        return TEST_NAMES[int(self.tests[i, j])]


def _sparse_ranks(X: sp.spmatrix) -> sp.csc_matrix:
    """Column midranks of a sparse matrix, shifted so that zeros stay zero (same pattern).

    Pearson correlation is shift-invariant, so the Pearson correlation of the result is the
    Spearman correlation of ``X``; the matrix is never densified.
    """
    Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
    Xc.sum_duplicates()
    Xc.eliminate_zeros()
    n, m = Xc.shape
    nnz = np.diff(Xc.indptr)
    col = np.repeat(np.arange(m), nnz)
    order = np.lexsort((Xc.data, col))
    v, c = Xc.data[order], col[order]
    n_zero = n - nnz
    n_neg = np.bincount(c[v < 0], minlength=m)
    pos = np.arange(v.size) - Xc.indptr[c]            # position among the column's nonzeros
    rank = pos + 1.0 + np.where(v > 0, n_zero[c], 0)   # 1-based rank among all n values
    if v.size:  # average the ranks of ties (same column, same value)
        start = np.r_[True, (c[1:] != c[:-1]) | (v[1:] != v[:-1])]
        gid = np.cumsum(start) - 1
        first = rank[start]
        counts = np.bincount(gid)
        last = first + counts - 1
        rank = ((first + last) / 2.0)[gid]
    zero_rank = n_neg + (n_zero + 1) / 2.0
    out = Xc.copy()
    out.data[order] = rank - zero_rank[c]
    return out


def _correlation(X, rank: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pearson (or Spearman, ``rank=True``) correlation of all column pairs; constant mask."""
    n = X.shape[0]
    if sp.issparse(X):
        R = _sparse_ranks(X) if rank else sp.csc_matrix(X, dtype=np.float64)
        mu = np.asarray(R.mean(axis=0)).ravel()
        G = np.asarray((R.T @ R).toarray(), dtype=np.float64)
        cov = G / n - np.outer(mu, mu)
    else:
        R = rankdata(X, axis=0) if rank else np.asarray(X, dtype=np.float64)
        Rc = R - R.mean(axis=0)
        cov = (Rc.T @ Rc) / n
    var = np.clip(np.diag(cov).copy(), 0.0, None)
    scale = np.abs(np.diag(cov)).max() if cov.size else 0.0
    constant = var <= 1e-12 * max(scale, 1.0)
    sd = np.sqrt(np.where(constant, 1.0, var))
    corr = cov / np.outer(sd, sd)
    corr[constant, :] = 0.0
    corr[:, constant] = 0.0
    return np.clip(corr, -1.0, 1.0), constant


def _onehot(codes: np.ndarray, levels: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """One-hot matrix Z (n x sum(levels)) and the level->feature indicator S (L x m)."""
    n, m = codes.shape
    offsets = np.r_[0, np.cumsum(levels)[:-1]]
    L = int(levels.sum())
    Z = sp.csr_matrix((np.ones(n * m, np.float32), (np.repeat(np.arange(n), m), (codes + offsets).ravel())),
                      shape=(n, L))
    S = sp.csr_matrix((np.ones(L), (np.arange(L), np.repeat(np.arange(m), levels))), shape=(L, m))
    return Z, S


def _cramers_v(codes_a, levels_a, codes_b, levels_b, *, block_cells: int = 6_000_000) -> np.ndarray:
    """Bias-corrected Cramer's V of every column of ``a`` against every column of ``b``.

    Contingency tables of all pairs at once: ``O = Z_a^T Z_b``; ``chi2/n = sum O^2/(r c) - 1``
    per pair is a block sum ``S_a^T (O^2 / r c^T) S_b``. ``O`` is computed in blocks of features
    and chunks of instances to bound memory; the products are dense float32 BLAS (exact integer
    counts below 2^24 instances).
    """
    n = codes_a.shape[0]
    Za, Sa = _onehot(codes_a, levels_a)
    Zb, Sb = _onehot(codes_b, levels_b)
    ra = np.asarray(Za.sum(axis=0)).ravel()
    rb = np.asarray(Zb.sum(axis=0)).ravel()
    ka = np.asarray(Sa.T @ (ra > 0)).ravel()            # non-empty levels per feature
    kb = np.asarray(Sb.T @ (rb > 0)).ravel()
    Zb_csr = sp.csr_matrix(Zb)
    Za_csc = sp.csc_matrix(Za)
    rows = max(1, int(block_cells // max(Zb.shape[1], 1)))   # instances per dense chunk
    inv_b = np.where(rb > 0, 1.0 / np.where(rb > 0, rb, 1), 0.0).astype(np.float32)
    phi2 = np.empty((codes_a.shape[1], codes_b.shape[1]))
    offsets = np.r_[0, np.cumsum(levels_a)]
    step = max(1, int(block_cells // max(Zb.shape[1], 1) // max(levels_a.max(initial=1), 1)))
    SbT = sp.csr_matrix(Sb.T)
    Zb_chunks = [(r0, Zb_csr[r0:r0 + rows].toarray()) for r0 in range(0, n, rows)] if n <= 4 * rows else None
    for f0 in range(0, codes_a.shape[1], step):  # blocks of features (memory), not pairs
        f1 = min(f0 + step, codes_a.shape[1])
        l0, l1 = offsets[f0], offsets[f1]
        O_blk = np.zeros((l1 - l0, Zb.shape[1]), dtype=np.float32)  # contingency counts O, dense BLAS
        Za_blk = sp.csr_matrix(Za_csc[:, l0:l1])
        chunks = Zb_chunks if Zb_chunks is not None else \
            ((r0, Zb_csr[r0:r0 + rows].toarray()) for r0 in range(0, n, rows))
        for r0, Zb_dense in chunks:
            O_blk += Za_blk[r0:r0 + Zb_dense.shape[0]].toarray().T @ Zb_dense
        inv_a = np.where(ra[l0:l1] > 0, 1.0 / np.where(ra[l0:l1] > 0, ra[l0:l1], 1), 0.0).astype(np.float32)
        Q = (O_blk * O_blk) * inv_a[:, None] * inv_b[None, :]
        T = np.asarray((SbT @ Q.T).T, dtype=np.float64)      # sum over b's levels
        T = np.asarray(Sa[l0:l1, f0:f1].T @ T)                # sum over a's levels
        phi2[f0:f1] = T - 1.0
    # Bergsma (2013) bias correction
    nn = max(n - 1, 1)
    phi2c = np.clip(phi2 - np.outer(ka - 1, kb - 1) / nn, 0.0, None)
    kac = ka - (ka - 1) ** 2 / nn
    kbc = kb - (kb - 1) ** 2 / nn
    den = np.minimum.outer(kac - 1, kbc - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where((den > _EPS) & (ka[:, None] > 1) & (kb[None, :] > 1), np.sqrt(phi2c / den), 0.0)
    return np.clip(v, 0.0, 1.0)


def _n_distinct_gt2(X) -> np.ndarray:
    """Columns with more than two distinct values (binning can add nothing to the rest)."""
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        out = np.zeros(Xc.shape[1], dtype=bool)
        nnz = np.diff(Xc.indptr)
        has_zero = nnz < Xc.shape[0]
        col = np.repeat(np.arange(Xc.shape[1]), nnz)
        order = np.lexsort((Xc.data, col))
        v, c = Xc.data[order], col[order]
        new = np.r_[True, (c[1:] != c[:-1]) | (v[1:] != v[:-1])] if v.size else np.zeros(0, bool)
        distinct = np.bincount(c[new], minlength=Xc.shape[1]) + has_zero
        out[:] = distinct > 2
        return out
    Xs = np.sort(np.asarray(X), axis=0)
    distinct = 1 + (Xs[1:] != Xs[:-1]).sum(axis=0) if Xs.shape[0] else np.zeros(Xs.shape[1], int)
    return distinct > 2


def dependence_matrix(
    numeric=None,
    symbolic_codes=None,
    symbolic_levels=None,
    y=None,
    *,
    numeric_test: str = "spearman",
    nonlinear: bool = True,
    n_bins: int = 3,
    order=None,
) -> Dependence:
    """Stage 1: the first-order dependence matrix of numeric and symbolic features.

    Parameters
    ----------
    numeric : array or sparse matrix (n x p), optional
        Numeric features.
    symbolic_codes : int array (n x s), optional
        Symbolic features as level codes ``0..levels-1``; ``symbolic_levels`` their level counts.
    y : array (n,), optional
        Class labels: needed for the class-driven discretisation of mixed pairs.
    numeric_test : {"spearman", "pearson"}
    nonlinear : bool
        Also compare numeric pairs by chi-square on ``n_bins`` equal-frequency bins.
    order : int array, optional
        Position of each column in the output: numeric columns first, then symbolic, are placed
        at ``order`` (default: numeric then symbolic).

    Returns
    -------
    Dependence

    Examples
    --------
    >>> x = np.linspace(-1, 1, 41)
    >>> d = dependence_matrix(np.column_stack([x, 2 * x, x ** 2, -x]))
    >>> np.round(d.matrix[0], 2).tolist()
    [1.0, 1.0, 0.61, -1.0]
    >>> [d.test_name(0, j) for j in range(4)]
    ['self', 'spearman', 'chi2-binned', 'spearman']
    """
    if numeric_test not in ("spearman", "pearson"):
        raise ValueError(f"numeric_test must be 'spearman' or 'pearson', got {numeric_test!r}")
    parts_n = 0 if numeric is None else numeric.shape[1]
    parts_s = 0 if symbolic_codes is None else symbolic_codes.shape[1]
    m = parts_n + parts_s
    M = np.zeros((m, m))
    tests = np.zeros((m, m), dtype=np.int8)
    constant = np.zeros(m, dtype=bool)
    if parts_n:
        corr, const_n = _correlation(numeric, rank=numeric_test == "spearman")
        M[:parts_n, :parts_n] = corr
        tests[:parts_n, :parts_n] = _T[numeric_test]
        constant[:parts_n] = const_n
        if nonlinear and n_bins >= 2:
            multi = np.flatnonzero(_n_distinct_gt2(numeric) & ~const_n)
            if multi.size >= 2:
                cols = numeric[:, multi]
                cols = cols.toarray() if sp.issparse(cols) else np.asarray(cols)  # only multi-valued columns
                codes, levels = equal_frequency_bins(cols, n_bins)
                V = _cramers_v(codes, levels, codes, levels)
                sub = np.ix_(multi, multi)
                c = M[sub]
                use_v = V > np.abs(c)
                M[sub] = np.where(use_v, V, c)
                tests[sub] = np.where(use_v, _T["chi2-binned"], tests[sub])
    if parts_s:
        codes_s = np.asarray(symbolic_codes, dtype=np.int64)
        levels_s = np.asarray(symbolic_levels, dtype=np.int64)
        used = np.array([np.unique(codes_s[:, j]).size for j in range(parts_s)])
        constant[parts_n:] = used <= 1
        sl = slice(parts_n, m)
        M[sl, sl] = _cramers_v(codes_s, levels_s, codes_s, levels_s)
        tests[sl, sl] = _T["cramers-v"]
        if parts_n:
            num = numeric.toarray() if sp.issparse(numeric) else np.asarray(numeric, dtype=np.float64)
            if y is None:
                codes_n, levels_n = equal_frequency_bins(num, n_bins)
            else:
                codes_n, levels_n, _ = mdl_bins(num, y, n_bins)
            V = _cramers_v(codes_n, levels_n, codes_s, levels_s)
            M[:parts_n, sl] = V
            M[sl, :parts_n] = V.T
            tests[:parts_n, sl] = _T["cramers-v-mdl"]
            tests[sl, :parts_n] = _T["cramers-v-mdl"]
    M[constant, :] = 0.0
    M[:, constant] = 0.0
    tests[constant, :] = _T["constant"]
    tests[:, constant] = _T["constant"]
    np.fill_diagonal(M, 1.0)
    np.fill_diagonal(tests, _T["self"])
    M[constant, constant] = 0.0
    tests[constant, constant] = _T["constant"]
    symbolic = np.r_[np.zeros(parts_n, bool), np.ones(parts_s, bool)]
    if order is not None:
        inv = np.empty(m, dtype=np.int64)
        inv[np.asarray(order)] = np.arange(m)
        M, tests = M[np.ix_(inv, inv)], tests[np.ix_(inv, inv)]
        symbolic, constant = symbolic[inv], constant[inv]
    return Dependence(M, tests, symbolic, constant)
