"""minimum Redundancy Maximum Relevance (Peng, Long & Ding 2005), MID form.

Greedy: first the feature with the largest ``I(f; C)``; then repeatedly the feature with the
largest ``I(f; C) - mean_{s in S} I(f; s)``. Ties (within ``1e-12`` bits, the rounding of the
sums) go to the lower index. Mutual information comes from joint count tables of discrete
features: binary features are used as they are; real-valued ones are first cut into Peng et
al.'s three states at ``mean +- std`` (``discretize="mean-std"``).

Each greedy step costs one sparse product (the co-occurrences of the newly chosen feature's
states with every state of every feature); the value 0 of a feature is never stored, its counts
follow by subtraction, so sparse binary tables stay sparse.

:func:`mrmr_ranking` is the measure; :class:`MRMR` the flat selector of the HiFSRR paper's
comparison, which the ``hifsrr2017`` protocol also applies per class-tree node
(:mod:`selection.class_hierarchy.evaluation`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from selection.base import TopKSelector
from selection.measures.relevance import entropy

__all__ = ["mean_std_states", "mrmr_ranking", "MRMR"]

_TIE = 1e-12  # scores this close count as equal (rounding of the sums)


def mean_std_states(X) -> np.ndarray:
    """Peng et al.'s discretisation of continuous features: -1 below ``mean - std``, +1 above
    ``mean + std``, 0 in between (per column, population std).

    Parameters
    ----------
    X : array (n_samples, n_features)

    Returns
    -------
    int ndarray (n_samples, n_features) of -1, 0, 1

    Examples
    --------
    >>> mean_std_states(np.array([[0.0], [1], [1], [1], [2]])).ravel().tolist()
    [-1, 0, 0, 0, 1]
    """
    X = np.asarray(X, dtype=np.float64)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    return (X > mu + sd).astype(np.int64) - (X < mu - sd).astype(np.int64)


def _mutual_information(T: np.ndarray) -> np.ndarray:
    """``I(A; B)`` in bits of the joint count tables ``T[..., a, b]`` (never negative)."""
    cells = T.reshape(T.shape[:-2] + (-1,))
    return np.clip(entropy(T.sum(axis=-1)) + entropy(T.sum(axis=-2)) - entropy(cells), 0.0, None)


class _States:
    """Discrete features as indicator columns of their non-zero states (the zero state implicit).

    Column ``s * n_features + f`` of ``O`` is 1 where feature ``f`` takes the ``s``-th non-zero
    value; the zero state's counts are the rest. Joint tables put the zero state first.
    """

    def __init__(self, X):
        Xc = sp.csc_matrix(X, dtype=np.float64)
        Xc.eliminate_zeros()
        self.m, self.n = Xc.shape
        values = np.unique(Xc.data)
        self.O = sp.hstack([sp.csc_matrix((Xc.data == v, Xc.indices, Xc.indptr), shape=Xc.shape, dtype=np.float64)
                            for v in values], format="csc") if values.size else sp.csc_matrix((self.m, 0))
        self.O.eliminate_zeros()
        self.S = values.size + 1
        self.counts = np.asarray(self.O.sum(axis=0)).ravel().reshape(values.size, self.n)  # (S-1, n)

    def _complete(self, N: np.ndarray, other_totals: np.ndarray) -> np.ndarray:
        """Tables (n, S, K) from the counts ``N`` (n, S-1, K) of the non-zero states."""
        zero = other_totals[None, :] - N.sum(axis=1)
        return np.concatenate([zero[:, None, :], N], axis=1)

    def with_labels(self, codes: np.ndarray, n_classes: int) -> np.ndarray:
        """Tables (n, S, n_classes): state x class counts of every feature."""
        Y = sp.csr_matrix((np.ones(self.m), (np.arange(self.m), codes)), shape=(self.m, n_classes))
        N = np.asarray((self.O.T @ Y).todense()).reshape(self.S - 1, self.n, n_classes).transpose(1, 0, 2)
        return self._complete(N, np.bincount(codes, minlength=n_classes).astype(np.float64))

    def with_feature(self, j: int) -> np.ndarray:
        """Tables (n, S, S): counts of every feature's states against the states of feature ``j``."""
        cols = np.arange(self.S - 1) * self.n + j
        N = np.asarray((self.O.T @ self.O[:, cols]).todense()).reshape(self.S - 1, self.n, self.S - 1)
        N = N.transpose(1, 0, 2)  # (n, state of f, state of j)
        totals_j = np.r_[self.m - self.counts[:, j].sum(), self.counts[:, j]]
        partial = np.concatenate([(self.counts.T - N.sum(axis=2))[:, :, None], N], axis=2)  # zero state of j
        zero_f = totals_j[None, :] - partial.sum(axis=1)
        return np.concatenate([zero_f[:, None, :], partial], axis=1)


def _greedy(states: _States, relevance: np.ndarray, k: int) -> list[int]:
    chosen: list[int] = []
    redundancy = np.zeros(relevance.size)
    free = np.ones(relevance.size, dtype=bool)
    for step in range(k):
        score = np.where(free, relevance - (redundancy / step if step else 0.0), -np.inf)
        j = int(np.flatnonzero(score >= score.max() - _TIE)[0])
        chosen.append(j)
        free[j] = False
        redundancy += _mutual_information(states.with_feature(j))
    return chosen


def mrmr_ranking(X, y, k: int | None = None, *, discretize: str | None = "mean-std", return_relevance=False):
    """mRMR (MID) order of the columns of ``X``: the first ``k`` greedily, then the rest by relevance.

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
    y : array (n_samples,)
        Class labels.
    k : int or None
        Features chosen greedily (all when None); the others follow by decreasing ``I(f; C)``
        (ties: lower index).
    discretize : {"mean-std", None}
        ``"mean-std"``: cut each (real-valued, dense) column into three states at ``mean +- std``
        (:func:`mean_std_states`). ``None``: the values of ``X`` are the states already (e.g. a
        sparse 0/1 table, kept sparse).
    return_relevance : bool
        Also return ``I(f; C)`` in bits.

    Returns
    -------
    order : int ndarray (n_features,)
    relevance : ndarray (n_features,), only with ``return_relevance=True``

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0]])
    >>> mrmr_ranking(X, [1, 1, 0, 0, 1, 1], k=2, discretize=None).tolist()  # 1 duplicates 0: last
    [2, 0, 1]
    """
    if discretize not in ("mean-std", None):
        raise ValueError(f"discretize must be 'mean-std' or None, got {discretize!r}")
    states = _States(mean_std_states(X) if discretize == "mean-std" else X)
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    relevance = _mutual_information(states.with_labels(codes.ravel(), classes.size))
    n = relevance.size
    chosen = _greedy(states, relevance, n if k is None else max(0, min(int(k), n)))
    rest = np.setdiff1d(np.arange(n), chosen)
    order = np.r_[np.asarray(chosen, dtype=np.int64), rest[np.argsort(-relevance[rest], kind="stable")]]
    return (order, relevance) if return_relevance else order


class MRMR(TopKSelector):
    """minimum Redundancy Maximum Relevance (Peng, Long & Ding 2005), MID form, ``k`` features.

    The first ``k`` features of :func:`mrmr_ranking` on the binary table. A flat filter
    (:class:`~selection.base.TopKSelector`): it takes no hierarchy.

    Parameters
    ----------
    k : int
        Number of features chosen.
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Attributes
    ----------
    selected_ : int ndarray
        The chosen features, in the order they were chosen.
    scores_ : ndarray
        ``I(f; C)`` in bits.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0]])
    >>> MRMR(k=2).fit(X, [1, 1, 0, 0, 1, 1]).selected_.tolist()   # 1 duplicates 0: skipped
    [2, 0]
    """

    def _ranking(self, X, y, k):
        order, self.scores_ = mrmr_ranking(X, y, k, discretize=None, return_relevance=True)
        return order
