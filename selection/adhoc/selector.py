"""ADHOC (Richeldi & Lanzi, KDD 1996): factors from higher-order correlation, then a GA that
takes at most one feature per factor, scored by a cross-validated decision tree.

The paper describes four stages in prose and gives no formulas; every choice below is ours,
written here, exposed as a parameter of :class:`ADHOC` and tested in
``tests/selection/adhoc/test_selector.py``.

**Input.** ADHOC is the one method of the project that takes numeric *and* symbolic features.

- A ``pandas.DataFrame``: columns of dtype ``category``, ``object`` or ``string`` are symbolic
  (``symbolic="auto"``); every other column (numbers, booleans) is numeric. ``symbolic`` may
  also be a list of further symbolic columns (names or positions), e.g. integer-coded
  categories; ``symbolic=None`` makes every column numeric.
- An array or sparse matrix: every column is numeric unless ``symbolic`` lists column positions.
- Missing values (NaN/None): ``missing="raise"`` (default) raises a ``ValueError`` naming the
  column and the first row; ``missing="impute"`` replaces a numeric gap by the column median and
  makes a symbolic gap its own level ``"<missing>"``.
- Constant features (one value, or one level) have no defined dependence: their row of the
  dependence matrix is 0 (test ``"constant"``), they go to the *unrelated* cluster, are flagged
  in ``constant_`` and are never selected (a constant column cannot change a tree).
- A single feature: stages 1-3 are trivial (one unrelated factor); the GA chooses between the
  feature and nothing.
- Column order does not matter: the stages run on the distinct columns in an order fixed by a
  hash of their content, and the result is mapped back. Exact duplicate columns are one feature:
  they share a factor and are selected or dropped together (test ``"duplicate"`` between them).
- ``binarize=t`` maps numeric values ``> t`` to 1 first (as the other selectors' parameter does;
  the project's estimator checks use it). ``hierarchy`` is accepted and ignored: ADHOC builds
  its own hierarchy of factors (registry kind ``"flat"``).

**Stage 1 - first-order dependence** (:func:`dependence_matrix`). A features x features matrix
``D1`` with entries in [-1, 1] (signed correlations) or [0, 1] (chi-square statistics, whose sign
is undefined), and the test chosen for each pair in a code matrix (names: :data:`TEST_NAMES`).
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
  method, :func:`mdl_bins`, standing in for Richeldi & Rossotto 1995, which we do not have;
  ``n_bins`` equal-frequency bins when MDL accepts no cut point, so a feature unrelated to the
  class can still be related to other features), then Cramer's V (test ``cramers-v-mdl``).
  Stuart's tau-c for ordinal pairs, which the paper mentions, is not implemented: ordinal
  symbolic features are treated as nominal.

Vectorised: all numeric correlations are one Gram matrix (sparse input stays sparse: ranks of a
sparse column keep its sparsity pattern after a shift), all contingency tables come from one
product of one-hot matrices ``Z_a^T Z_b`` and the chi-square of every pair from block sums of
``O^2 / (row x column totals)``. No Python loop runs over pairs (MDL runs once per feature).

**Stage 2 - higher-order correlation** (:func:`profile_correlation`, :func:`higher_order`).
The profile of a feature is its row of ``|D_k|`` (dependence strength; the sign of a negative
concept is kept aside for stage 3, so a feature and its negation have the same profile). Our
stand-in for the paper's R statistic: ``D_{k+1}[i, j]`` is the Pearson correlation of the
profiles (rows of ``D_k``) of ``i`` and ``j``, whole rows with the self entry 1 included, as in
the paper's example profile (so two features related only to each other are similar).
Features are clustered at every order (average linkage on ``1 - D_k``, cut where the average
similarity falls below ``cluster_threshold``); the recursion starts at ``min_order`` and stops
when the mean within-cluster similarity of every cluster reaches ``stop_similarity`` *and* the
partition is the one of the previous order (our reading of the paper's rule: tight clusters
alone would stop before indirect associations had time to merge clusters), or at
``max_order``. Profiles need at least ``min_profile`` (paper: 4) features; with fewer the
first-order matrix is clustered.

**Stage 3 - hierarchy of factors** (:func:`factor_hierarchy`). The paper's four kinds:

- *unrelated*: no first-order dependence of size ``unrelated_threshold`` with any feature
  (and constant features);
- *positive concept*: a cluster of two or more features; its members with a negative
  first-order correlation to the cluster's pivot (the member most dependent on the others) form
  its *negative concept* child;
- *undefined*: the remaining features (related to something, but in no cluster). The analysis
  is repeated on the undefined features alone, to find relations masked by the other features;
  clusters found there become concepts.
- Refinement: a concept of at least ``min_cluster_size`` features is analysed again on its own
  features; the split into sub-concepts is kept unless the cluster is homogeneous - our test of
  homogeneity: the mean first-order dependence between the sub-concepts is at least
  ``split_ratio`` times the mean within them. Recursion ends below ``min_cluster_size``.

The result is a :class:`~kg.hierarchy.FeatureHierarchy` whose leaves are the features and whose
inner nodes are ``adhoc:F1``, ``adhoc:F1.2``, ``adhoc:F1:neg``, ``adhoc:undefined``,
``adhoc:unrelated`` (drawn and exported like any other hierarchy).

**Stage 4 - genetic search** (:func:`genetic_search`). The factors the GA sees: with
``ga_level="leaf"`` (default) every concept node with the features attached to it directly (the
homogeneous factors the refinement stopped at; a node's negative concept joins it), with
``ga_level="top"`` each top-level concept with everything under it; plus every undefined or
unrelated feature as a singleton factor. The paper applies "a test of homogeneity ... to every
level of the hierarchy to determine a good factorization"; the leaves are the factors that passed
ours. ``"leaf"`` is the default because it was clearly more accurate on breast cancer and
Cities in ``docs/adhoc.md`` (2-5 points: the top level merges e.g. all size and texture measures
of breast cancer into one factor) and within the fold-to-fold noise on wine.
A genome holds, per factor, one member or none. Fitness: the mean stratified ``cv``-fold accuracy of
``DecisionTreeClassifier(criterion="entropy", ccp_alpha, min_samples_leaf)`` - scikit-learn has
no C4.5; information-gain splits with cost-complexity pruning are the closest stand-in
(C4.5 uses gain ratio and error-based pruning). Symbolic features enter the tree one-hot
encoded. Ties in accuracy go to the smaller subset (the paper's "least sized" subset), then to
the lexicographically smaller index tuple (in :class:`ADHOC`: indices in the content-hash order,
so ties do not depend on the column order). Search spaces of at most ``exhaustive_limit``
genomes are enumerated; larger ones run a seeded generational GA (tournament selection,
uniform crossover, per-gene mutation, elitism, early stop after ``patience`` generations
without improvement). The paper gives no GA parameters; ours are the defaults below.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> z = rng.normal(size=(300, 2))
>>> X = np.column_stack([z[:, 0] + 0.3 * rng.normal(size=300) for _ in range(4)]
...                     + [z[:, 1] + 0.3 * rng.normal(size=300) for _ in range(4)])
>>> y = (z[:, 0] > 0).astype(int)
>>> s = ADHOC(random_state=0).fit(X, y)
>>> s.factor_labels_.tolist()          # two factors of four noisy copies each
[0, 0, 0, 0, 1, 1, 1, 1]
>>> int(s.get_support()[:4].sum())     # at most one feature of the class factor
1
"""

from __future__ import annotations

import hashlib
import itertools
import logging
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from scipy.stats import rankdata
from sklearn import config_context
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from kg.hierarchy import FeatureHierarchy
from selection.base import HierarchicalSelector, check_hierarchy
from selection.registry import register_classifier, register_selector

__all__ = [
    "ADHOC",
    "TEST_NAMES",
    "Dependence",
    "dependence_matrix",
    "profile_correlation",
    "higher_order",
    "factor_hierarchy",
    "genetic_search",
    "mdl_bins",
    "equal_frequency_bins",
    "c45_tree",
]

log = logging.getLogger(__name__)

#: Names of the per-pair test codes in :attr:`Dependence.tests`.
TEST_NAMES = ("self", "constant", "pearson", "spearman", "chi2-binned", "cramers-v", "cramers-v-mdl", "duplicate")
_T = {name: i for i, name in enumerate(TEST_NAMES)}
_EPS = 1e-12


# =============================================================================== stage 1
@dataclass
class Dependence:
    """The first-order dependence matrix and the test chosen for each pair.

    ``matrix[i, j]`` in [-1, 1] (correlations) or [0, 1] (chi-square based); ``tests[i, j]`` is
    an index into :data:`TEST_NAMES`; ``symbolic[i]`` marks symbolic features; ``constant[i]``
    features without variation (their row is 0).
    """

    matrix: np.ndarray
    tests: np.ndarray
    symbolic: np.ndarray
    constant: np.ndarray

    def test_name(self, i: int, j: int) -> str:
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


def equal_frequency_bins(X, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes (n x m, int) of each column cut into ``n_bins`` equal-frequency bins; levels used.

    Ties share a bin (bins come from average ranks), so a column with fewer distinct values
    than ``n_bins`` uses fewer levels. ``X`` is dense here (callers densify only the columns
    that need binning).
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

    Returns codes (n x m), the number of levels per column and the cut points per column. A
    column where MDL accepts no cut falls back to ``n_bins_fallback`` equal-frequency bins
    (its cut list is then empty). One call per column; the cut search inside is vectorised.

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
        O = np.zeros((l1 - l0, Zb.shape[1]), dtype=np.float32)  # contingency counts, dense BLAS
        Za_blk = sp.csr_matrix(Za_csc[:, l0:l1])
        chunks = Zb_chunks if Zb_chunks is not None else \
            ((r0, Zb_csr[r0:r0 + rows].toarray()) for r0 in range(0, n, rows))
        for r0, Zb_dense in chunks:
            O += Za_blk[r0:r0 + Zb_dense.shape[0]].toarray().T @ Zb_dense
        inv_a = np.where(ra[l0:l1] > 0, 1.0 / np.where(ra[l0:l1] > 0, ra[l0:l1], 1), 0.0).astype(np.float32)
        Q = (O * O) * inv_a[:, None] * inv_b[None, :]
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


# =============================================================================== stage 2
def profile_correlation(D: np.ndarray) -> np.ndarray:
    """One step of higher-order correlation: Pearson correlation of the rows of symmetric ``D``.

    The profile of a feature is its whole row, its own entry (1) included, as in the paper's
    example ``<0.2, 0.1, 0.8, 0.3, 0.9, 1.0>``: two features related only to each other have
    similar profiles. One product ``D D^T`` gives all pairs. A row without variation gives 0.

    Examples
    --------
    >>> D = np.array([[1, .9, .1, .8], [.9, 1, .2, .7], [.1, .2, 1, .1], [.8, .7, .1, 1]])
    >>> np.round(profile_correlation(D), 2)[0].tolist()
    [1.0, 0.96, -0.97, 0.89]
    """
    D = np.asarray(D, dtype=np.float64)
    m = D.shape[0]
    if m < 2:
        return np.ones((m, m))
    C = D - D.mean(axis=1, keepdims=True)
    G = C @ C.T
    var = np.diag(G).copy()
    ok = var > 1e-12 * max(1.0, float(var.max(initial=0.0)))
    sd = np.sqrt(np.where(ok, var, 1.0))
    out = G / np.outer(sd, sd)
    out[~ok, :] = 0.0
    out[:, ~ok] = 0.0
    out = np.clip((out + out.T) / 2.0, -1.0, 1.0)
    np.fill_diagonal(out, 1.0)
    return out


def _cluster(S: np.ndarray, threshold: float) -> np.ndarray:
    """Average-linkage clusters of similarity ``S`` cut at mean similarity ``threshold``.

    Labels are renumbered by each cluster's smallest member (deterministic).
    """
    m = S.shape[0]
    if m == 1:
        return np.zeros(1, dtype=np.int64)
    dist = np.clip(1.0 - S, 0.0, 2.0)
    dist = (dist + dist.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    Z = linkage(squareform(dist, checks=False), method="average")
    raw = fcluster(Z, t=1.0 - threshold + 1e-12, criterion="distance")
    _, first = np.unique(raw, return_index=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    _, inv = np.unique(raw, return_inverse=True)
    return rank[inv]


def _within(S: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean off-diagonal similarity inside each cluster (nan for singletons)."""
    k = labels.max() + 1
    A = sp.csr_matrix((np.ones(labels.size), (labels, np.arange(labels.size))), shape=(k, labels.size))
    tot = np.asarray((A @ np.asarray(A @ S).T).T)  # k x k block sums
    size = np.asarray(A.sum(axis=1)).ravel()
    diag = np.asarray(A @ np.diag(S)).ravel()
    pairs = size * (size - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pairs > 0, (np.diag(tot) - diag) / np.where(pairs > 0, pairs, 1), np.nan)


def higher_order(A: np.ndarray, *, cluster_threshold: float = 0.5, stop_similarity: float = 0.9,
                 min_order: int = 2, max_order: int = 4, min_profile: int = 4):
    """Stage 2: recursive profile correlation with the paper's stopping rule.

    ``A`` is the first-order dependence strength (``|D1|``). Clusters are formed from order
    ``min_order`` on; the recursion stops when every cluster's mean within similarity is at
    least ``stop_similarity`` and the partition equals the previous order's, or at
    ``max_order``. Returns ``(D, labels, order, history)``: the order-``order`` matrix, its
    clusters, the order reached, and per order the mean within-cluster similarity of the least
    coherent cluster of two or more features.

    Examples
    --------
    >>> A = np.array([[1, .8, .1, .1, .0], [.8, 1, .1, .0, .1], [.1, .1, 1, .7, .1],
    ...               [.1, .0, .7, 1, .0], [.0, .1, .1, .0, 1]])
    >>> D, labels, order, hist = higher_order(A, min_order=1)
    >>> labels.tolist(), order
    ([0, 0, 1, 1, 2], 3)
    """
    A = np.asarray(A, dtype=np.float64)
    m = A.shape[0]
    if max_order < 1 or min_order < 1:
        raise ValueError("min_order and max_order must be at least 1")
    D, order, history, prev = A, 1, [], None
    if m < min_profile:  # profiles too short to compare: first order only
        labels = _cluster(D, cluster_threshold)
        w = _within(D, labels)
        history.append(float(np.nanmin(w)) if np.isfinite(w).any() else 1.0)
        return D, labels, 1, history
    while True:
        if order >= min_order:
            labels = _cluster(D, cluster_threshold)
            w = _within(D, labels)
            worst = float(np.nanmin(w)) if np.isfinite(w).any() else 1.0
            history.append(worst)
            stable = prev is not None and np.array_equal(prev, labels)
            if (worst >= stop_similarity and stable) or order >= max_order:
                return D, labels, order, history
            prev = labels
        D = profile_correlation(D)
        order += 1


# =============================================================================== stage 3
@dataclass
class Factor:
    """A node of the factor hierarchy: id, kind, parent id, members (feature indices)."""

    id: str
    kind: str
    parent: str | None
    members: np.ndarray
    direct: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    order: int = 1
    similarity: float = float("nan")


@dataclass
class FactorResult:
    factors: list
    hierarchy: FeatureHierarchy
    top_labels: np.ndarray      # top-level factor of each feature (singletons: own label; constants -1)
    unrelated: np.ndarray
    undefined: np.ndarray
    orders: list


def factor_hierarchy(D1: np.ndarray, feature_names=None, *, constant=None, unrelated_threshold: float = 0.3,
                     cluster_threshold: float = 0.5, stop_similarity: float = 0.9, min_order: int = 2,
                     max_order: int = 4, min_profile: int = 4, min_cluster_size: int = 4,
                     split_ratio: float = 0.75) -> FactorResult:
    """Stage 3: cluster the features into the paper's four kinds, refined recursively.

    See the module docstring for the rules. Returns a :class:`FactorResult` with the factor
    records, the :class:`~kg.hierarchy.FeatureHierarchy` (features are leaves) and the
    top-level factor label of each feature.

    Examples
    --------
    >>> D1 = np.eye(6)
    >>> D1[:3, :3] = D1[3:5, 3:5] = 0.8; np.fill_diagonal(D1, 1.0)
    >>> r = factor_hierarchy(D1, list("abcdef"), min_order=1)
    >>> [(f.id, f.kind, f.members.tolist()) for f in r.factors]
    [('adhoc:F1', 'positive-concept', [0, 1, 2]), ('adhoc:F2', 'positive-concept', [3, 4]), ('adhoc:unrelated', 'unrelated', [5])]
    """
    D1 = np.asarray(D1, dtype=np.float64)
    m = D1.shape[0]
    names = [f"x{i}" for i in range(m)] if feature_names is None else [str(f) for f in feature_names]
    constant = np.zeros(m, bool) if constant is None else np.asarray(constant, bool)
    A = np.abs(D1)
    off = A - np.diag(np.diag(A))
    unrelated = constant | (off.max(axis=1, initial=0.0) < unrelated_threshold)
    related = np.flatnonzero(~unrelated)
    kw = dict(cluster_threshold=cluster_threshold, stop_similarity=stop_similarity, min_order=min_order,
              max_order=max_order, min_profile=min_profile)
    orders: list = []

    def groups_of(idx: np.ndarray):
        if idx.size == 0:
            return [], []
        D, labels, order, hist = higher_order(A[np.ix_(idx, idx)], **kw)
        orders.append(order)
        w = _within(D, labels)
        groups = [idx[labels == g] for g in range(labels.max() + 1)]
        sims = [float(w[g]) for g in range(labels.max() + 1)]
        return list(zip(groups, sims, [order] * len(groups))), D

    # top level, then the undefined features on their own (relations masked by others)
    found, _ = groups_of(related)
    concepts = [g for g in found if g[0].size >= 2]
    undefined = np.array(sorted(int(i) for g in found if g[0].size < 2 for i in g[0]), dtype=np.int64)
    while undefined.size >= min_cluster_size:
        again, _ = groups_of(undefined)
        new = [g for g in again if g[0].size >= 2]
        if not new:
            break
        concepts += new
        undefined = np.array(sorted(int(i) for g in again if g[0].size < 2 for i in g[0]), dtype=np.int64)
    concepts.sort(key=lambda g: int(g[0].min()))

    factors: list[Factor] = []

    def split_sign(members: np.ndarray):
        sub = A[np.ix_(members, members)]
        pivot = members[int(np.argmax(sub.sum(axis=1) - np.diag(sub)))]
        neg = D1[pivot, members] < 0
        if neg.sum() > (~neg).sum():  # the larger side is the positive concept
            neg = ~neg
        return members[~neg], members[neg]

    def build(fid: str, parent, members: np.ndarray, sim: float, order: int):
        node = Factor(fid, "positive-concept", parent, np.sort(members), order=order, similarity=sim)
        factors.append(node)
        direct = members
        if members.size >= min_cluster_size:
            sub, _ = groups_of(members)
            subc = [g for g in sub if g[0].size >= 2]
            if len(sub) >= 2 and subc:
                lab = np.full(m, -1)
                for gi, g in enumerate(sub):
                    lab[g[0]] = gi
                same = lab[members][:, None] == lab[members][None, :]
                blk = A[np.ix_(members, members)]
                eye = np.eye(members.size, dtype=bool)
                within = blk[same & ~eye].mean() if (same & ~eye).any() else np.nan
                between = blk[~same].mean()
                if np.isfinite(within) and between < split_ratio * within:  # not homogeneous
                    direct = np.array(sorted(int(i) for g in sub if g[0].size < 2 for i in g[0]), dtype=np.int64)
                    for ci, g in enumerate(sorted(subc, key=lambda g: int(g[0].min())), start=1):
                        build(f"{fid}.{ci}", fid, g[0], g[1], g[2])
        pos, neg = split_sign(direct) if direct.size else (direct, direct)
        node.direct = np.sort(pos)
        if neg.size:
            factors.append(Factor(f"{fid}:neg", "negative-concept", fid, np.sort(neg), np.sort(neg), order=order))

    for k, (members, sim, order) in enumerate(concepts, start=1):
        build(f"adhoc:F{k}", None, members, sim, order)
    unrelated_idx = np.flatnonzero(unrelated)
    if undefined.size:
        factors.append(Factor("adhoc:undefined", "undefined", None, undefined, undefined))
    if unrelated_idx.size:
        factors.append(Factor("adhoc:unrelated", "unrelated", None, unrelated_idx, unrelated_idx))

    taken = set(names)
    edges = []
    for f in factors:
        if f.id in taken:
            raise ValueError(f"feature name {f.id!r} collides with a factor node id; rename the feature")
        if f.parent is not None:
            edges.append((f.id, f.parent))
        edges += [(names[i], f.id) for i in f.direct]
    h = FeatureHierarchy.from_edges(edges, nodes=names + [f.id for f in factors])

    labels = np.full(m, -1, dtype=np.int64)
    nxt = 0
    for f in factors:
        if f.parent is None and f.kind == "positive-concept":
            labels[f.members] = nxt
            nxt += 1
    for i in np.r_[undefined, unrelated_idx].astype(np.int64):
        if not constant[i]:
            labels[i] = nxt
            nxt += 1
    return FactorResult(factors, h, labels, unrelated_idx, undefined, orders)


def _renumber(factors: list) -> list:
    """Name concept nodes by position of their first column (F1 holds the earliest column, ...).

    Returns the factors depth-first (concepts, each followed by its negative concept), then the
    undefined and unrelated nodes.
    """
    kids: dict = {}
    for f in factors:
        if f.kind == "positive-concept":
            kids.setdefault(f.parent, []).append(f)
    neg = {f.parent: f for f in factors if f.kind == "negative-concept"}
    out: list = []

    def walk(parent_old, parent_new):
        for i, f in enumerate(sorted(kids.get(parent_old, []), key=lambda f: int(f.members.min())), start=1):
            old = f.id
            f.id = f"adhoc:F{i}" if parent_new is None else f"{parent_new}.{i}"
            f.parent = parent_new
            out.append(f)
            if old in neg:
                neg[old].id, neg[old].parent = f"{f.id}:neg", f.id
                out.append(neg[old])
            walk(old, f.id)

    walk(None, None)
    return out + [f for f in factors if f.kind in ("undefined", "unrelated")]


# =============================================================================== stage 4
def c45_tree(ccp_alpha: float = 0.005, min_samples_leaf: int = 2, random_state=0) -> DecisionTreeClassifier:
    """The closest scikit-learn stand-in for C4.5: entropy splits, cost-complexity pruning."""
    return DecisionTreeClassifier(criterion="entropy", ccp_alpha=ccp_alpha, min_samples_leaf=min_samples_leaf,
                                  random_state=random_state)


@dataclass
class SearchResult:
    subset: tuple
    accuracy: float
    n_evaluations: int
    exhaustive: bool
    history: list


def _folds(y: np.ndarray, cv: int, seed) -> list:
    n = y.size
    _, counts = np.unique(y, return_counts=True)
    k = int(min(cv, n))
    if k < 2:
        return [(np.arange(n), np.arange(n))]  # one instance: resubstitution (logged by caller)
    if counts.min() >= k:
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(splitter.split(np.zeros(n), y))
    return list(KFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(n)))


def genetic_search(blocks, y, factors, *, cv: int = 5, estimator=None, population_size: int = 30,
                   n_generations: int = 30, patience: int = 8, crossover_rate: float = 0.9,
                   mutation_rate: float | None = None, tournament_size: int = 3, n_elite: int = 2,
                   exhaustive_limit: int = 256, random_state=0) -> SearchResult:
    """Stage 4: best subset taking at most one feature from each factor.

    ``blocks[i]`` is feature ``i``'s block of design columns (n x 1, or one-hot for symbolic),
    dense or sparse; ``factors`` lists the candidate feature indices of each factor. Fitness is
    the mean ``cv``-fold (stratified, seeded) accuracy of ``estimator`` (default
    :func:`c45_tree`); the empty subset scores the majority class of each training part.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 120)
    >>> blocks = [y[:, None] + 0.1 * rng.normal(size=(120, 1)), rng.normal(size=(120, 1))]
    >>> genetic_search(blocks, y, [[0], [1]], random_state=0).subset
    (0,)
    """
    _, y = np.unique(np.asarray(y), return_inverse=True)  # int codes: cheaper target checks
    est = c45_tree() if estimator is None else estimator
    folds = _folds(y, cv, random_state)
    factors = [np.asarray(sorted(int(i) for i in f), dtype=np.int64) for f in factors if len(f)]
    K = len(factors)
    cache: dict[tuple, float] = {}
    any_sparse = any(sp.issparse(b) for b in blocks)

    fast = type(est) is DecisionTreeClassifier  # validated once here, not in every fold

    def design(subset):
        cols = [blocks[i] for i in subset]
        if any_sparse:
            return sp.hstack([sp.csc_matrix(c) for c in cols], format="csc", dtype=np.float32)
        return np.ascontiguousarray(np.hstack(cols), dtype=np.float32)

    def fitness(subset: tuple) -> float:
        hit = cache.get(subset)
        if hit is not None:
            return hit
        accs = []
        Xs = design(subset) if subset else None
        for tr, te in folds:
            if Xs is None:
                vals, cnt = np.unique(y[tr], return_counts=True)
                accs.append(float(np.mean(y[te] == vals[np.argmax(cnt)])))
            elif fast:
                Xtr, Xte = Xs[tr], Xs[te]
                if any_sparse:
                    Xtr, Xte = sp.csc_matrix(Xtr), sp.csr_matrix(Xte)
                with config_context(assume_finite=True, skip_parameter_validation=True):
                    model = DecisionTreeClassifier(**est.get_params()).fit(Xtr, y[tr], check_input=False)
                    accs.append(float(np.mean(model.predict(Xte, check_input=False) == y[te])))
            else:
                model = est.__class__(**est.get_params()).fit(Xs[tr], y[tr])
                accs.append(float(np.mean(model.predict(Xs[te]) == y[te])))
        cache[subset] = acc = float(np.mean(accs))
        return acc

    def subset_of(genome) -> tuple:
        return tuple(sorted(int(factors[k][g]) for k, g in enumerate(genome) if g >= 0))

    def better(a: tuple, b: tuple | None) -> bool:  # accuracy, then fewer features, then indices
        if b is None:
            return True
        fa, fb = fitness(a), fitness(b)
        if abs(fa - fb) > 1e-12:
            return fa > fb
        return (len(a), a) < (len(b), b)

    space = 1
    for f in factors:
        space *= f.size + 1
        if space > exhaustive_limit:
            break
    best: tuple | None = None
    history: list = []
    if space <= exhaustive_limit:
        for genome in itertools.product(*[range(-1, f.size) for f in factors]):
            s = subset_of(genome)
            if better(s, best):
                best = s
        return SearchResult(best, fitness(best), len(cache), True, [fitness(best)])

    rng = np.random.default_rng(random_state)
    sizes = np.array([f.size for f in factors])
    mut = (1.0 / K) if mutation_rate is None else float(mutation_rate)

    def random_genome():
        g = rng.integers(0, sizes)
        return np.where(rng.random(K) < 0.5, g, -1)

    pop = [random_genome() for _ in range(population_size)]
    stale = 0
    for gen in range(n_generations):
        subsets = [subset_of(g) for g in pop]
        fit = np.array([fitness(s) for s in subsets])
        keyed = sorted(range(len(pop)), key=lambda i: (-fit[i], len(subsets[i]), subsets[i]))
        gen_best = subsets[keyed[0]]
        if better(gen_best, best) and gen_best != best:
            best, stale = gen_best, 0
        else:
            stale += 1
        history.append(fitness(best))
        if stale >= patience:
            break
        rank_of = np.empty(len(pop), dtype=np.int64)
        rank_of[keyed] = np.arange(len(pop))  # lower is better

        def pick():
            c = rng.integers(0, len(pop), size=tournament_size)
            return pop[int(c[np.argmin(rank_of[c])])]

        new = [pop[i].copy() for i in keyed[:n_elite]]
        while len(new) < population_size:
            a, b = pick(), pick()
            if rng.random() < crossover_rate:
                mask = rng.random(K) < 0.5
                child = np.where(mask, a, b)
            else:
                child = a.copy()
            flip = rng.random(K) < mut
            if flip.any():
                child = child.copy()
                child[flip] = rng.integers(-1, sizes[flip])
            new.append(child)
        pop = new
    return SearchResult(best, fitness(best), len(cache), False, history)


# =============================================================================== the selector
def _is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


class ADHOC(HierarchicalSelector):
    """ADHOC feature selection (Richeldi & Lanzi 1996) on numeric and symbolic features.

    Stages 1-3 discover a hierarchy of factors from higher-order correlation
    (``factor_hierarchy_``); stage 4 searches subsets with at most one feature per factor,
    scored by a cross-validated entropy decision tree. See the module docstring for every
    choice the paper leaves open.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Ignored (ADHOC builds its own hierarchy); accepted for the uniform selector API.
    numeric_test : {"spearman", "pearson"}
    nonlinear : bool
        Also test numeric pairs by chi-square on ``n_bins`` equal-frequency bins.
    n_bins : int
        Bins for the chi-square of numeric pairs and the MDL fallback (default 3).
    symbolic : "auto", list or None
        Symbolic columns: "auto" = DataFrame columns of dtype category/object/string; a list adds
        columns (names or positions) to those; None = none.
    missing : {"raise", "impute"}
    unrelated_threshold, cluster_threshold, stop_similarity, min_order, max_order,
    min_profile, min_cluster_size, split_ratio : stage 2-3 parameters (module docstring)
    ga_level : {"leaf", "top"}
        Which factors the GA takes at most one feature from (module docstring).
    cv, ccp_alpha, min_samples_leaf : fitness (k folds; tree pruning)
    population_size, n_generations, patience, crossover_rate, mutation_rate, tournament_size,
    exhaustive_limit : GA parameters (``mutation_rate=None``: 1 / number of factors)
    random_state : int
    binarize : float or None
        Map numeric values ``> binarize`` to 1 before anything else.

    Attributes
    ----------
    dependence_ : Dependence (stage 1; ``dependence_.matrix``, ``dependence_.tests``)
    higher_order_ : int, order reached at the top level (stage 2)
    factors_ : list of Factor (stage 3)
    factor_hierarchy_ : FeatureHierarchy (factor nodes + feature leaves)
    factor_labels_ : ndarray, top-level factor of each feature, numbered by first column (undefined
        and unrelated features: one label each; constant: -1)
    ga_factors_ : list of ndarray, the factors the GA chose from
    subset_ : tuple of int, the selected features (with their exact duplicates); ``cv_accuracy_``
        its fitness
    constant_ : ndarray of bool; symbolic_ : ndarray of bool
    n_evaluations_ : int, distinct subsets scored

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=200)
    >>> df = pd.DataFrame({"a": z + 0.2 * rng.normal(size=200), "b": z + 0.2 * rng.normal(size=200),
    ...                    "c": pd.Categorical(np.where(z + rng.normal(size=200) > 0, "hi", "lo")), "noise": rng.normal(size=200)})
    >>> s = ADHOC().fit(df, (z > 0).astype(int))
    >>> s.symbolic_.tolist(), s.dependence_.test_name(0, 2)
    ([False, False, True, False], 'cramers-v-mdl')
    >>> s.factor_labels_.tolist()      # a, b: one factor; c undefined; noise unrelated
    [0, 0, 1, 2]
    >>> s.get_feature_names_out().tolist()
    ['a', 'c']
    """

    def __init__(self, hierarchy=None, *, numeric_test="spearman", nonlinear=True, n_bins=3, symbolic="auto",
                 missing="raise", unrelated_threshold=0.3, cluster_threshold=0.5, stop_similarity=0.9,
                 min_order=2, max_order=4, min_profile=4, min_cluster_size=4, split_ratio=0.75, ga_level="leaf",
                 cv=5, ccp_alpha=0.005, min_samples_leaf=2, population_size=30, n_generations=30, patience=8,
                 crossover_rate=0.9, mutation_rate=None, tournament_size=3, exhaustive_limit=256,
                 random_state=0, binarize=None):
        self.hierarchy = hierarchy
        self.numeric_test = numeric_test
        self.nonlinear = nonlinear
        self.n_bins = n_bins
        self.symbolic = symbolic
        self.missing = missing
        self.unrelated_threshold = unrelated_threshold
        self.cluster_threshold = cluster_threshold
        self.stop_similarity = stop_similarity
        self.min_order = min_order
        self.max_order = max_order
        self.min_profile = min_profile
        self.min_cluster_size = min_cluster_size
        self.split_ratio = split_ratio
        self.ga_level = ga_level
        self.cv = cv
        self.ccp_alpha = ccp_alpha
        self.min_samples_leaf = min_samples_leaf
        self.population_size = population_size
        self.n_generations = n_generations
        self.patience = patience
        self.crossover_rate = crossover_rate
        self.mutation_rate = mutation_rate
        self.tournament_size = tournament_size
        self.exhaustive_limit = exhaustive_limit
        self.random_state = random_state
        self.binarize = binarize

    # ------------------------------------------------------------------ input
    def _symbolic_columns(self, X, n_cols: int, names) -> np.ndarray:
        sym = np.zeros(n_cols, dtype=bool)
        spec = self.symbolic
        if spec is None:
            return sym
        if isinstance(spec, str) and spec != "auto":
            raise ValueError(f"symbolic must be 'auto', None or a list of columns, got {spec!r}")
        if _is_dataframe(X):  # "auto", and the base of an explicit list
            import pandas as pd

            for j, dt in enumerate(X.dtypes):
                sym[j] = isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dt) \
                    or pd.api.types.is_string_dtype(dt)
        if isinstance(spec, str):
            return sym
        for c in spec:
            if isinstance(c, (int, np.integer)):
                if not -n_cols <= int(c) < n_cols:
                    raise ValueError(f"symbolic column {c} out of range for {n_cols} columns")
                sym[int(c)] = True
            else:
                hits = [j for j, nm in enumerate(names) if nm == str(c)]
                if not hits:
                    raise ValueError(f"symbolic column {c!r} is not a column of X")
                sym[hits[0]] = True
        return sym

    def _prepare(self, X, y, reset: bool):
        """Validate ``X``; return (numeric block, symbolic codes, levels, order, design blocks)."""
        if self.missing not in ("raise", "impute"):
            raise ValueError(f"missing must be 'raise' or 'impute', got {self.missing!r}")
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None (class labels)")
        import pandas as pd

        if _is_dataframe(X):
            names = [str(c) for c in X.columns]
            sym = self._symbolic_columns(X, X.shape[1], names)
            frame = {}
            codes_list, levels_list = [], []
            for j, col in enumerate(X.columns):
                s = X.iloc[:, j]
                miss = np.asarray(s.isna())
                if miss.any() and self.missing == "raise":
                    raise ValueError(f"missing value in column {col!r} at row {int(np.flatnonzero(miss)[0])}; "
                                     "pass missing='impute' to impute (numeric: median, symbolic: own level)")
                if sym[j]:
                    vals = s.astype(object).where(~miss, "<missing>").astype(str)
                    codes, uniques = pd.factorize(vals, sort=True)
                    codes_list.append(codes.astype(np.int64))
                    levels_list.append(max(len(uniques), 1))
                    frame[col] = codes.astype(np.float64)
                else:
                    v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan).copy()
                    bad = np.isnan(v) & ~miss
                    if bad.any():
                        i = int(np.flatnonzero(bad)[0])
                        raise ValueError(f"column {col!r} is numeric but row {i} holds {s.iloc[i]!r}; "
                                         "list it in symbolic=[...] to treat it as symbolic")
                    if miss.any():
                        v[miss] = np.nanmedian(v) if (~miss).any() else 0.0
                    frame[col] = v
            Xv = pd.DataFrame(frame, index=X.index)
            Xv.columns = X.columns
        else:
            Xv = X
            sym = None
        if y is not None:
            Xv, y = validate_data(self, Xv, y, accept_sparse="csr", dtype=np.float64, reset=reset,
                                  ensure_all_finite=True if (self.missing == "raise" or _is_dataframe(X))
                                  else "allow-nan")
        n, m = Xv.shape
        if sp.issparse(Xv) and np.isnan(Xv.data).any():
            raise ValueError("missing values (NaN) in sparse input are not supported; impute them first")
        if sym is None:
            sym = self._symbolic_columns(X, m, [str(j) for j in range(m)])
            codes_list, levels_list = [], []
            if sym.any():
                dense_sym = Xv[:, sym].toarray() if sp.issparse(Xv) else Xv[:, sym]
                for j in range(dense_sym.shape[1]):
                    col = dense_sym[:, j]
                    miss = np.isnan(col)
                    if miss.any():
                        col = np.where(miss, np.inf, col)  # its own level
                    _, codes = np.unique(col, return_inverse=True)
                    codes_list.append(codes.astype(np.int64))
                    levels_list.append(int(codes.max()) + 1)
            if not sp.issparse(Xv) and np.isnan(Xv).any():  # missing="impute" on an array
                Xv = Xv.copy()
                med = np.array([np.nanmedian(c) if (~np.isnan(c)).any() else 0.0 for c in Xv.T])
                r, c = np.nonzero(np.isnan(Xv))
                Xv[r, c] = med[c]
        num_idx = np.flatnonzero(~sym)
        sym_idx = np.flatnonzero(sym)
        numeric = None
        if num_idx.size:
            numeric = Xv[:, num_idx] if sp.issparse(Xv) else np.asarray(Xv)[:, num_idx]
            if sp.issparse(numeric):
                numeric = sp.csc_matrix(numeric)
            if self.binarize is not None:
                if sp.issparse(numeric):
                    numeric = numeric.copy()
                    numeric.data = (numeric.data > self.binarize).astype(np.float64)
                    numeric.eliminate_zeros()
                else:
                    numeric = (numeric > self.binarize).astype(np.float64)
        codes = np.column_stack(codes_list) if codes_list else None
        levels = np.asarray(levels_list, dtype=np.int64) if levels_list else None
        # design blocks for the tree: numeric column, or one-hot of a symbolic one
        blocks: list = [None] * m
        for k, j in enumerate(num_idx):
            blocks[j] = numeric[:, [k]] if sp.issparse(numeric) else numeric[:, k:k + 1]
        for k, j in enumerate(sym_idx):
            blocks[j] = np.eye(levels[k])[codes[:, k]]
        order = np.r_[num_idx, sym_idx]
        return n, m, y, sym, numeric, codes, levels, order, blocks

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Run the four stages on ``X`` (array, sparse matrix or DataFrame) and labels ``y``."""
        if self.ga_level not in ("top", "leaf"):
            raise ValueError(f"ga_level must be 'top' or 'leaf', got {self.ga_level!r}")
        n, m, y, sym, numeric, codes, levels, order, blocks = self._prepare(X, y, reset=True)
        check_classification_targets(y)
        if len(np.unique(y)) < 2:
            raise ValueError(f"y has a single class ({np.unique(y)[0]!r}); feature relevance needs more than one class")
        self.hierarchy_ = check_hierarchy(self.hierarchy, m)
        names = [str(c) for c in getattr(self, "feature_names_in_", [f"x{i}" for i in range(m)])]
        self.symbolic_ = sym
        # Canonical order: the stages run on the distinct columns sorted by a hash of their
        # content, so the result does not depend on the column order, and exact duplicate
        # columns are one feature (selected or dropped together).
        num_idx, sym_idx = np.flatnonzero(~sym), np.flatnonzero(sym)
        pos = np.empty(m, dtype=np.int64)
        pos[num_idx] = np.arange(num_idx.size)
        pos[sym_idx] = np.arange(sym_idx.size)
        if sp.issparse(numeric):
            numeric = sp.csc_matrix(numeric)
            numeric.eliminate_zeros()
            numeric.sort_indices()
        keys = []
        for j in range(m):
            k = int(pos[j])
            if sym[j]:
                raw = b"S" + np.ascontiguousarray(codes[:, k]).tobytes()
            else:  # the same key for sparse and dense input: non-zero rows, then their values
                if sp.issparse(numeric):
                    a, b = numeric.indptr[k], numeric.indptr[k + 1]
                    rows, vals = numeric.indices[a:b], numeric.data[a:b]
                else:
                    rows = np.flatnonzero(numeric[:, k])
                    vals = numeric[rows, k]
                raw = b"N" + rows.astype(np.int64).tobytes() + b"|" + (vals.astype(np.float64) + 0.0).tobytes()
            keys.append(hashlib.blake2b(raw, digest_size=16).digest())
        uniq = sorted(set(keys))
        gid = {key: g for g, key in enumerate(uniq)}
        group_of = np.array([gid[key] for key in keys], dtype=np.int64)
        members_of = [np.flatnonzero(group_of == g) for g in range(len(uniq))]
        rep = np.array([mem[0] for mem in members_of], dtype=np.int64)
        canon_num = np.flatnonzero(~sym[rep])
        canon_sym = np.flatnonzero(sym[rep])
        numeric_c = None if canon_num.size == 0 else numeric[:, pos[rep[canon_num]]]
        codes_c = None if canon_sym.size == 0 else codes[:, pos[rep[canon_sym]]]
        levels_c = None if canon_sym.size == 0 else levels[pos[rep[canon_sym]]]

        def expand(idx) -> np.ndarray:
            idx = np.asarray(idx, dtype=np.int64)
            return np.sort(np.concatenate([members_of[g] for g in idx])) if idx.size else np.zeros(0, np.int64)

        # stage 1
        dep_u = dependence_matrix(numeric_c, codes_c, levels_c, y, numeric_test=self.numeric_test,
                                  nonlinear=self.nonlinear, n_bins=int(self.n_bins), order=np.r_[canon_num, canon_sym])
        M = dep_u.matrix[np.ix_(group_of, group_of)]
        T = dep_u.tests[np.ix_(group_of, group_of)].copy()
        dup = (group_of[:, None] == group_of[None, :]) & ~np.eye(m, dtype=bool) & (T == _T["self"])
        T[dup] = _T["duplicate"]
        self.dependence_ = Dependence(M, T, sym, dep_u.constant[group_of])
        self.constant_ = self.dependence_.constant
        # stages 2-3
        res = factor_hierarchy(dep_u.matrix, [names[r] for r in rep], constant=dep_u.constant,
                               unrelated_threshold=self.unrelated_threshold,
                               cluster_threshold=self.cluster_threshold, stop_similarity=self.stop_similarity,
                               min_order=self.min_order, max_order=self.max_order, min_profile=self.min_profile,
                               min_cluster_size=self.min_cluster_size, split_ratio=self.split_ratio)
        factors = _renumber([Factor(f.id, f.kind, f.parent, expand(f.members), expand(f.direct), f.order,
                                    f.similarity) for f in res.factors])
        clash = set(names) & {f.id for f in factors}
        if clash:
            raise ValueError(f"feature name {sorted(clash)[0]!r} collides with a factor node id; rename the feature")
        edges = [(f.id, f.parent) for f in factors if f.parent is not None]
        edges += [(names[i], f.id) for f in factors for i in f.direct]
        self.factors_ = factors
        self.factor_hierarchy_ = FeatureHierarchy.from_edges(edges, nodes=names + [f.id for f in factors])
        lab = res.top_labels[group_of]
        first = {}
        for v in lab[lab >= 0]:  # number the factors by their first column
            first.setdefault(int(v), len(first))
        self.factor_labels_ = np.array([first.get(int(v), -1) for v in lab], dtype=np.int64)
        self.higher_order_ = res.orders[0] if res.orders else 1
        # stage 4 (on the distinct columns, canonical order)
        ga = []
        if self.ga_level == "top":
            ga += [f.members for f in res.factors if f.parent is None and f.kind == "positive-concept"]
        else:  # every concept node: the features attached to it directly, with its negative concept
            neg = {f.parent: f.members for f in res.factors if f.kind == "negative-concept"}
            ga += [np.r_[f.direct, neg.get(f.id, np.zeros(0, np.int64))].astype(np.int64)
                   for f in res.factors if f.kind == "positive-concept"]
        ga += [np.array([i]) for i in np.r_[res.undefined, res.unrelated].astype(np.int64)]
        ga = [g[~dep_u.constant[g]] for g in ga]
        ga = [np.sort(g) for g in ga if g.size]
        ga.sort(key=lambda g: int(g[0]))
        self.ga_factors_ = [expand(g) for g in ga]
        if n < 2:
            log.warning("ADHOC: one instance; the tree is scored on its training data")
        est = c45_tree(self.ccp_alpha, self.min_samples_leaf, self.random_state)
        result = genetic_search([blocks[r] for r in rep], y, ga, cv=self.cv, estimator=est,
                                population_size=self.population_size, n_generations=self.n_generations,
                                patience=self.patience, crossover_rate=self.crossover_rate,
                                mutation_rate=self.mutation_rate, tournament_size=self.tournament_size,
                                exhaustive_limit=self.exhaustive_limit, random_state=self.random_state)
        chosen = expand(list(result.subset))
        self.subset_ = tuple(int(i) for i in chosen)
        self.cv_accuracy_ = result.accuracy
        self.n_evaluations_ = result.n_evaluations
        self.search_exhaustive_ = result.exhaustive
        self.search_history_ = result.history
        sup = np.zeros(m, dtype=bool)
        sup[chosen] = True
        self.support_ = sup
        self.scores_ = sup.astype(np.float64)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "impute"
        return tags


register_selector(
    "adhoc", lambda hierarchy=None, **kw: ADHOC(hierarchy, **kw), kind="flat",
    description="ADHOC (Richeldi & Lanzi 1996): factors from higher-order correlation, GA with at most one "
                "feature per factor, entropy decision tree fitness; builds its own hierarchy, ignores the given one",
)
register_classifier(
    "tree", lambda **kw: DecisionTreeClassifier(**{"criterion": "entropy", "ccp_alpha": 0.005,
                                                   "min_samples_leaf": 2, "random_state": 0, **kw}),
    description="decision tree, entropy criterion, cost-complexity pruning (stand-in for C4.5)",
)
