"""The Fisher score (Duda, Hart & Stork), for binary sparse and real-valued dense data.

``F(f) = sum_c n_c (mu_fc - mu_f)^2 / sum_c n_c var_fc`` with the population variance of each
class. A feature constant within every class but not overall has an infinite score (perfect
separation); a constant feature has score 0 (0/0).

:func:`fisher_scores` is the measure; :class:`FisherScore` the flat selector (top ``k``), the
HiFSRR paper's baseline, which the ``hifsrr2017`` protocol also applies per class-tree node on
real-valued data (:mod:`selection.class_hierarchy.evaluation`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from selection.base import TopKSelector

__all__ = ["fisher_scores", "FisherScore"]


def _class_moments(X, codes: np.ndarray, n_classes: int):
    """Per-class sizes, means and population variances of every column, and the overall means.

    Dense input: two passes per class (accurate for real values). Sparse input: from the class
    sums of ``x`` and ``x^2`` (one sparse product each), so nothing is densified.
    """
    n_c = np.bincount(codes, minlength=n_classes).astype(np.float64)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        n = X.shape[0]
        onehot = sp.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_classes, n))
        s1 = np.asarray((onehot @ X).todense())  # classes x features: the class sums, not the table
        s2 = np.asarray((onehot @ X.multiply(X)).todense())
        mu_c = s1 / n_c[:, None]
        var_c = np.clip(s2 / n_c[:, None] - mu_c**2, 0.0, None)
        return n_c, mu_c, var_c, np.asarray(X.sum(axis=0)).ravel() / n
    X = np.asarray(X, dtype=np.float64)
    parts = [X[codes == c] for c in range(n_classes)]
    mu_c = np.array([p.mean(axis=0) for p in parts])
    var_c = np.array([p.var(axis=0) for p in parts])
    return n_c, mu_c, var_c, X.mean(axis=0)


def fisher_scores(X, y) -> np.ndarray:
    """Fisher score of every column of ``X`` for the labels ``y``.

    Parameters
    ----------
    X : array or sparse matrix (n_samples, n_features)
        Binary or real-valued; sparse input stays sparse.
    y : array (n_samples,)
        Class labels.

    Returns
    -------
    ndarray (n_features,)
        ``inf`` for a feature constant within every class but not overall, 0 for a constant one.

    Examples
    --------
    >>> fisher_scores(np.array([[0.0], [2], [4], [6]]), [0, 0, 1, 1]).tolist()  # between 16, within 4
    [4.0]
    >>> fisher_scores(np.array([[1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 0, 1]]), [0, 0, 1, 1]).tolist()
    [0.0, inf, 0.0]
    """
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    n_c, mu_c, var_c, mu = _class_moments(X, codes.ravel(), classes.size)
    num = np.zeros(mu.size)
    den = np.zeros(mu.size)
    for c in range(classes.size):
        num += n_c[c] * (mu_c[c] - mu) ** 2
        den += n_c[c] * var_c[c]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.where(num > 0, np.inf, 0.0))


class FisherScore(TopKSelector):
    """Fisher score of each feature (binary, or counts); the top ``k`` are selected (ties: lower index).

    A flat filter (:class:`~selection.base.TopKSelector`): it takes no hierarchy.

    Parameters
    ----------
    k : int
        Number of features kept.
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Attributes
    ----------
    scores_ : ndarray
        The Fisher score of every feature (:func:`fisher_scores`).
    selected_ : int ndarray
        The kept features, best first.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 0]])
    >>> FisherScore(k=1).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, False, False]
    """

    #: The score is defined on numbers: a table's counts (``--values count``) are read as they are.
    reads_counts = True

    def _ranking(self, X, y, k):
        self.scores_ = fisher_scores(X, y)
        return np.argsort(-self.scores_, kind="stable")
