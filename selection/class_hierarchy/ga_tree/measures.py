"""The accuracy estimates of a base classifier (section III-D) and the score of a tree (Eq. 10).

:func:`count_relief` (Eq. 8-9) and :func:`relief` (Eq. 4-6) score every sample from a distance
matrix, :func:`fisher_criterion` (Eq. 1-3) a node's features as a whole, and
:func:`penalised_score` subtracts the feature and level penalties of Eq. 10 from a tree's
accuracy (choices 5-7 of :mod:`selection.class_hierarchy.ga_tree`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from selection.class_hierarchy.ga_tree.layout import GATree

__all__ = ["count_relief", "relief", "fisher_criterion", "penalised_score"]


def _sqdist(A: np.ndarray, B: np.ndarray | None = None, *, binary: bool = False) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``A`` and ``B`` (``A`` when None).

    Exact for equal values: per-feature differences (few features) or the Gram form on 0/1 data
    (integers, exact in floating point).
    """
    sym = B is None
    B = A if sym else B
    if sp.issparse(A) or sp.issparse(B):
        A = sp.csr_matrix(A)
        B = sp.csr_matrix(B)
        na = np.asarray(A.multiply(A).sum(axis=1)).ravel()
        nb = np.asarray(B.multiply(B).sum(axis=1)).ravel()
        D = na[:, None] + nb[None, :] - 2.0 * (A @ B.T).toarray()
        return np.maximum(D, 0.0)
    if binary or A.shape[1] > 32:
        D = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
        return np.maximum(D, 0.0)
    D = np.zeros((A.shape[0], B.shape[0]))
    for j in range(A.shape[1]):
        diff = A[:, j][:, None] - B[:, j][None, :]
        D += diff * diff
    return D


def _group_codes(groups_of_sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..G-1 and group sizes."""
    u, g = np.unique(groups_of_sample, return_inverse=True)
    return g.astype(np.int64), np.bincount(g, minlength=len(u))


def count_relief(D: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Count-based RELIEF per sample (Eq. 8-9): hits closer than the nearest miss, normalised.

    ``D`` are (squared or plain -- only the order matters) distances between the samples,
    ``groups`` their labels. Sample ``p`` scores ``#{i != p in its group : d(p, i) < M_p} /
    (N_g - 1)``, ``M_p`` the distance to its nearest miss. Averaging over the samples of a class
    gives Eq. 8's ``r_c``.

    Parameters
    ----------
    D : ndarray (n, n)
        Distances between the samples.
    groups : array (n,)
        Label (output group) of every sample.

    Returns
    -------
    ndarray (n,)
        In [0, 1]; 0 for a sample alone in its group.

    Examples
    --------
    >>> x = np.array([0.0, 0.1, 0.5, 1.0, 1.2])
    >>> count_relief(np.abs(x[:, None] - x[None, :]), np.array([0, 0, 0, 1, 1])).tolist()
    [1.0, 1.0, 0.5, 1.0, 1.0]
    """
    g, sizes = _group_codes(np.asarray(groups))
    same = g[:, None] == g[None, :]
    miss = np.where(same, np.inf, D).min(axis=1)
    hits = same & (D < miss[:, None])
    np.fill_diagonal(hits, False)
    denom = sizes[g] - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        out = hits.sum(axis=1) / denom
    return np.where(denom > 0, out, 0.0)


def relief(D: np.ndarray, groups: np.ndarray, k: int = 1) -> np.ndarray:
    """RELIEF per sample (Eq. 4-6): mean of the ``k`` nearest-miss distances minus that of the hits.

    ``D`` are Euclidean distances. ``k`` is capped by the hits/misses a sample has. Averaging
    over the samples of a class gives Eq. 6's ``r_c``.

    Parameters
    ----------
    D : ndarray (n, n)
        Euclidean distances between the samples.
    groups : array (n,)
        Label (output group) of every sample.
    k : int
        ``K`` of Eq. 6.

    Returns
    -------
    ndarray (n,)
        0 for a sample without a hit or a miss.

    Examples
    --------
    >>> x = np.array([0.0, 0.1, 0.5, 1.0, 1.2])
    >>> np.round(relief(np.abs(x[:, None] - x[None, :]), np.array([0, 0, 0, 1, 1])), 3).tolist()
    [0.9, 0.8, 0.1, 0.3, 0.5]
    """
    g, sizes = _group_codes(np.asarray(groups))
    n = len(g)
    same = g[:, None] == g[None, :]
    H = np.where(same, D, np.inf)
    np.fill_diagonal(H, np.inf)
    M = np.where(same, np.inf, D)
    # per sample, K capped by the hits and misses it has (a one-sample group has no hit: 0)
    k_eff = np.minimum(np.minimum(k, sizes[g] - 1), n - sizes[g])
    kmax = int(k_eff.max()) if n else 0
    if kmax <= 0:
        return np.zeros(n)
    Hs = np.cumsum(np.sort(H, axis=1)[:, :kmax], axis=1)
    Ms = np.cumsum(np.sort(M, axis=1)[:, :kmax], axis=1)
    rows = np.arange(n)
    kk = np.maximum(k_eff, 1) - 1
    out = (Ms[rows, kk] - Hs[rows, kk]) / np.maximum(k_eff, 1)
    return np.where(k_eff > 0, out, 0.0)


def fisher_criterion(X: np.ndarray, groups: np.ndarray) -> float:
    """Fisher's interclass separability ``J = trace[(Q_b + Q_w)^-1 Q_b]`` (Eq. 1-3).

    ``Q_w`` is the within-group scatter over all ``N`` samples, ``Q_b`` the mean over groups of
    ``(M_c - M_not_c)(M_c - M_not_c)^T``. A pseudo-inverse is used (a constant feature adds 0).

    Parameters
    ----------
    X : ndarray (n, n_features)
        The node's samples on its features.
    groups : array (n,)
        Label (output group) of every sample.

    Returns
    -------
    float
        ``J`` (0 without features); not bounded by 1.

    Examples
    --------
    >>> X = np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> round(fisher_criterion(X, np.array([0, 0, 1, 1])), 6)
    1.0
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0:
        return 0.0
    g, sizes = _group_codes(np.asarray(groups))
    N, G = len(g), len(sizes)
    onehot = np.zeros((G, N))
    onehot[g, np.arange(N)] = 1.0
    sums = onehot @ X
    means = sums / sizes[:, None]
    R = X - means[g]
    Qw = R.T @ R / N
    total = X.sum(axis=0)
    rest = N - sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (total[None, :] - sums) / rest[:, None]
    diff = np.where(rest[:, None] > 0, means - others, 0.0)
    Qb = diff.T @ diff / G
    return float(np.trace(np.linalg.pinv(Qb + Qw) @ Qb))


def penalised_score(accuracy: float, tree: GATree, n_features: int, n_classes: int,
                    alpha_t: float, alpha_b: float, alpha_l: float) -> float:
    """Eq. 10: ``S = A_all - a_t F_t/F - a_b F_b/(F(C-1)) - a_l N_l/(C-1)``.

    Parameters
    ----------
    accuracy : float
        ``A_all``.
    tree : GATree
    n_features, n_classes : int
        ``F`` and ``C``.
    alpha_t, alpha_b, alpha_l : float
        The penalties.

    Returns
    -------
    float

    Examples
    --------
    >>> from selection.class_hierarchy.ga_tree.layout import flat_tree
    >>> t = flat_tree(4, [0, 2])
    >>> round(penalised_score(0.9, t, 5, 4, 0.1, 0.1, 0.3), 6)  # 0.9 - 0.04 - 0.0133 - 0.1
    0.746667
    """
    Cm1 = max(n_classes - 1, 1)
    F = max(n_features, 1)
    return float(accuracy - alpha_t * tree.f_t / F - alpha_b * tree.f_b / (F * Cm1) - alpha_l * tree.n_levels / Cm1)
