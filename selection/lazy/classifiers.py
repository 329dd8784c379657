"""The lazy classifiers of the RPV paper: each test instance is classified on its own features.

:class:`LazyNaiveBayes` (Bernoulli, Laplace smoothing; each test instance is scored only on
its own selected features) and :class:`LazyKNN` (Euclidean distance over the selected
features of the test instance, k=1 in the paper); :func:`make_lazy_classifier` by name.
``predict(X, mask)`` takes the mask of a lazy selector (``select_for``), a 1-D support of an
eager selector (the same mask for every row), or ``None`` (all features).

Behaviour on awkward input (tested in ``tests/selection/lazy/test_selectors.py``): values
outside {0, 1} raise ``ValueError`` naming the row and column unless ``binarize=t`` is given;
classes that occur only at test time cannot be predicted (``classes_`` come from the training
labels); a feature with no positive training occurrence is scored by Naive Bayes with the
Laplace estimate ``1 / (n_c + 2)``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from kg.sklearn_compat import Interval, StrOptions
from selection.base import BINARIZE, as_binary_csr, check_class_labels
from selection.lazy.masks import as_mask

__all__ = ["LazyNaiveBayes", "LazyKNN", "make_lazy_classifier", "LAZY_CLASSIFIER_NAMES"]


def _fit_xy(est, X, y):
    X, y = validate_data(est, X, y, accept_sparse="csr", dtype=np.float64, reset=True)
    check_class_labels(y)
    X = as_binary_csr(X, getattr(est, "binarize", None))
    est.classes_, codes = np.unique(y, return_inverse=True)
    return X, codes


def _test_x(est, X):
    check_is_fitted(est, "classes_")
    X = validate_data(est, X, accept_sparse="csr", dtype=np.float64, reset=False)
    return as_binary_csr(X, getattr(est, "binarize", None), what="X_test")


class LazyNaiveBayes(ClassifierMixin, BaseEstimator):
    """Bernoulli Naive Bayes that scores each test instance on its own selected features.

    ``log P(c | t) ∝ log P(c) + sum_{f in S_t} log P(x_tf | c)`` with Laplace smoothing
    ``P(x=1 | c) = (n_fc + alpha) / (n_c + 2 alpha)``. With ``mask=None`` every feature is used
    (then it equals scikit-learn's ``BernoulliNB`` when ``prior="empirical"``). Because Naive
    Bayes factorises over features, this is exactly "train NB on the selected features and
    classify the instance", as the lazy NB of the paper does, but for all instances at once:
    ``jll = log P(c) + (S ∧ X) @ (log p1 - log p0) + S @ log p0``.

    Parameters
    ----------
    alpha : float
        Laplace smoothing of the feature probabilities (1.0; > 0).
    prior : {"laplace", "empirical"}
        Class prior ``(n_c + 1) / (n + k)`` (WEKA's NaiveBayes) or ``n_c / n``.
    binarize : float or None
        Map values ``> binarize`` to 1 first (None: values must be 0/1).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> nb = LazyNaiveBayes().fit(np.array([[1, 0], [1, 1], [0, 1]]), [0, 0, 1])
    >>> nb.predict(np.array([[0, 1], [0, 1]]), sp.csr_matrix([[0, 1], [1, 0]])).tolist()
    [0, 1]
    """

    _parameter_constraints = {"alpha": [Interval(Real, 0, None, closed="neither")],
                              "prior": [StrOptions({"laplace", "empirical"})], "binarize": BINARIZE}

    def __init__(self, alpha=1.0, *, prior="laplace", binarize=None):
        self.alpha = alpha
        self.prior = prior
        self.binarize = binarize

    def fit(self, X, y):
        self._validate_params()
        X, codes = _fit_xy(self, X, y)
        k = len(self.classes_)
        onehot = sp.csr_matrix((np.ones(len(codes)), (np.arange(len(codes)), codes)), shape=(len(codes), k))
        pos = np.asarray((X.T @ onehot).todense())  # (n_features, k)
        n_c = np.bincount(codes, minlength=k).astype(np.float64)
        a = float(self.alpha)
        self.log_p1_ = np.log((pos + a) / (n_c + 2 * a))
        self.log_p0_ = np.log((n_c - pos + a) / (n_c + 2 * a))
        if self.prior == "laplace":
            self.class_log_prior_ = np.log((n_c + 1) / (n_c.sum() + k))
        else:
            self.class_log_prior_ = np.log(n_c / n_c.sum())
        return self

    def joint_log_likelihood(self, X, mask=None) -> np.ndarray:
        """Unnormalised ``log P(c, selected values of t)`` (n_test x n_classes)."""
        X = _test_x(self, X)
        m = as_mask(mask, X.shape[0], X.shape[1])
        delta = self.log_p1_ - self.log_p0_
        if m is None:
            jll = X @ delta + self.log_p0_.sum(axis=0)
        elif isinstance(m, np.ndarray):
            jll = X[:, m] @ delta[m] + self.log_p0_[m].sum(axis=0)
        else:
            jll = sp.csr_matrix(m.multiply(X)) @ delta + m.astype(np.float64) @ self.log_p0_
        return np.asarray(jll) + self.class_log_prior_

    def predict_proba(self, X, mask=None) -> np.ndarray:
        jll = self.joint_log_likelihood(X, mask)
        jll = jll - jll.max(axis=1, keepdims=True)
        p = np.exp(jll)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X, mask=None) -> np.ndarray:
        return self.classes_[np.argmax(self.joint_log_likelihood(X, mask), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LazyKNN(ClassifierMixin, BaseEstimator):
    """k-NN with Euclidean distance over the selected features of each test instance.

    ``d(t, i)^2 = sum_{f in S_t} (x_tf - x_if)^2 = |S_t ∧ x_t| + S_t · x_i - 2 (S_t ∧ x_t) · x_i``
    for binary data: two sparse products against the training matrix per block of test rows.

    Parameters
    ----------
    n_neighbors : int
        Neighbours (1 as in the paper).
    ties : {"include", "first"}
        ``"include"`` (WEKA's IBk): every training instance at the k-th smallest distance is a
        neighbour; ``"first"``: exactly k, ties broken by training order.
    binarize : float or None
        Map values ``> binarize`` to 1 first (None: values must be 0/1).
    block_size : int
        Test rows whose distances are computed at once (memory, not results).

    ``predict_proba`` follows IBk: each class starts at ``1 / n_train``, each neighbour adds 1,
    and the row is normalised (so a 1-NN still ranks instances for AUROC/AUCPR when neighbours
    tie). ``predict`` takes the most probable class (the first in ``classes_`` on ties).

    Examples
    --------
    >>> import numpy as np
    >>> knn = LazyKNN().fit(np.array([[1, 0, 0], [0, 1, 1]]), ["a", "b"])
    >>> knn.predict(np.array([[1, 1, 1]]), np.array([[True, False, False]])).tolist()
    ['a']
    """

    _parameter_constraints = {"n_neighbors": [Interval(Integral, 1, None, closed="left")],
                              "ties": [StrOptions({"include", "first"})], "binarize": BINARIZE,
                              "block_size": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, n_neighbors=1, *, ties="include", binarize=None, block_size=1024):
        self.n_neighbors = n_neighbors
        self.ties = ties
        self.binarize = binarize
        self.block_size = block_size

    def fit(self, X, y):
        self._validate_params()
        X, codes = _fit_xy(self, X, y)
        self._X = X
        self._XT = X.T.tocsr()
        self._row_nnz = np.diff(X.indptr).astype(np.float64)
        self._codes = codes
        k = len(self.classes_)
        self._onehot = np.zeros((len(codes), k))
        self._onehot[np.arange(len(codes)), codes] = 1.0
        return self

    def squared_distances(self, X, mask=None) -> np.ndarray:
        """Squared distances (n_test x n_train) over each test row's selected features."""
        X = _test_x(self, X)
        m = as_mask(mask, X.shape[0], X.shape[1])
        if not X.shape[0]:
            return np.zeros((0, self._X.shape[0]))
        return np.vstack([self._d2(X[s : s + self.block_size], None if m is None else
                                   (m if isinstance(m, np.ndarray) else m[s : s + self.block_size]))
                          for s in range(0, X.shape[0], self.block_size)])

    def _d2(self, X, m):
        if m is None:
            a = np.diff(X.indptr).astype(np.float64)
            b = self._row_nnz[None, :]
            c = (X @ self._XT).toarray()
        elif isinstance(m, np.ndarray):
            xm = X[:, m]
            tr = self._X[:, m]
            a = np.diff(xm.indptr).astype(np.float64)
            b = np.diff(tr.indptr).astype(np.float64)[None, :]
            c = (xm @ tr.T).toarray()
        else:
            pos = sp.csr_matrix(m.multiply(X))
            a = np.diff(pos.indptr).astype(np.float64)
            b = (m.astype(np.float64) @ self._XT).toarray()
            c = (pos @ self._XT).toarray()
        return a[:, None] + b - 2.0 * c

    def predict_proba(self, X, mask=None) -> np.ndarray:
        d2 = self.squared_distances(X, mask)
        n_train = d2.shape[1]
        k = min(int(self.n_neighbors), n_train)
        if self.ties == "include":
            kth = np.partition(d2, k - 1, axis=1)[:, k - 1]
            nb = d2 <= kth[:, None] + 1e-9
        else:
            order = np.argsort(d2, axis=1, kind="stable")[:, :k]
            nb = np.zeros_like(d2, dtype=bool)
            np.put_along_axis(nb, order, True, axis=1)
        votes = nb.astype(np.float64) @ self._onehot + 1.0 / max(1, n_train)
        return votes / votes.sum(axis=1, keepdims=True)

    def predict(self, X, mask=None) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X, mask), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_LAZY_CLASSIFIERS = {
    "nb": lambda **kw: LazyNaiveBayes(**kw),
    "1nn": lambda **kw: LazyKNN(**{**kw, "n_neighbors": 1}),
    "knn": lambda **kw: LazyKNN(**{"n_neighbors": kw.pop("k", kw.pop("n_neighbors", 3)), **kw}),
}
#: The names :func:`make_lazy_classifier` takes.
LAZY_CLASSIFIER_NAMES = tuple(_LAZY_CLASSIFIERS)


def make_lazy_classifier(name: str, **params):
    """A lazy classifier by name: ``"nb"``, ``"1nn"`` or ``"knn"`` (``k=`` or ``n_neighbors=``, default 3).

    The result has ``fit(X, y)``, ``predict(X, mask)``, ``predict_proba(X, mask)`` and
    ``classes_``; ``mask`` comes from a lazy selector's ``select_for``, an eager selector's
    ``get_support()``, or is ``None``.

    Parameters
    ----------
    name : {"nb", "1nn", "knn"}
    **params
        Constructor parameters (``k`` is ``n_neighbors``).

    Returns
    -------
    LazyNaiveBayes or LazyKNN
        Unfitted.

    Examples
    --------
    >>> make_lazy_classifier("knn", k=5)
    LazyKNN(n_neighbors=5)
    >>> make_lazy_classifier("1nn").n_neighbors
    1
    """
    try:
        factory = _LAZY_CLASSIFIERS[name]
    except KeyError:
        raise ValueError(f"unknown lazy classifier {name!r}; available: nb, 1nn, knn") from None
    if name == "1nn" and params.get("n_neighbors", params.get("k", 1)) != 1:
        raise ValueError("'1nn' has k=1; use 'knn' with k=... for another k")
    params.pop("k", None) if name == "1nn" else None
    return factory(**params)

