"""A classifier fitted on the columns an eager selection kept, as :func:`selection.evaluation.cv.evaluate_table` does.

:func:`eager_classify` fits a fresh classifier on a fold's training part restricted to a mask and
scores the test part; the evaluation keeps its output per distinct mask within a fold.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.svm import SVC

from selection.evaluation.specs import MethodSpec

__all__ = ["eager_classify"]


class _GramSVC:
    """An ``SVC`` with a polynomial or linear kernel, fitted on its Gram matrix.

    libsvm evaluates kernels on sparse rows slowly (a 900 x 1,000 table at 50% density took
    30 s per fit here); the Gram matrix ``X X^T`` is one sparse product (instances x instances,
    never instances x features dense), and ``SVC(kernel="precomputed")`` on
    ``(gamma <x, x'> + coef0) ** degree`` is the same model (same dual problem, same
    predictions; checked in the tests).
    """

    def __init__(self, svc):
        self.svc = svc

    def _gamma(self, X):
        g = self.svc.gamma
        n, m = X.shape
        if g == "scale":
            mean = X.sum() / (n * m)
            var = X.multiply(X).sum() / (n * m) - mean * mean
            return 1.0 / (m * var) if var > 0 else 1.0
        if g == "auto":
            return 1.0 / m
        return float(g)

    def _kernel(self, A):
        dot = (A @ self._Xt.T)
        dot = dot.toarray() if sp.issparse(dot) else np.asarray(dot)
        if self.svc.kernel == "linear":
            return dot
        return (self.gamma_ * dot + self.svc.coef0) ** self.svc.degree

    def fit(self, X, y):
        X = sp.csr_matrix(X)
        self._Xt = X
        self.gamma_ = self._gamma(X)
        self.model_ = clone(self.svc).set_params(kernel="precomputed")
        self.model_.fit(self._kernel(X), y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(self._kernel(sp.csr_matrix(X)))

    def decision_function(self, X):
        return self.model_.decision_function(self._kernel(sp.csr_matrix(X)))


def _scores(clf, X):
    """Class scores: ``predict_proba`` if the classifier has it, else ``decision_function``."""
    try:
        return clf.predict_proba(X)
    except (AttributeError, NotImplementedError):
        pass
    if hasattr(clf, "decision_function"):
        return clf.decision_function(X)
    return None


def eager_classify(clf_spec: MethodSpec, X_tr, y_tr, X_te, mask, hierarchy=None):
    """Predictions, scores and classes of a fresh ``clf_spec`` fitted on the columns of ``mask``.

    A classifier that takes a hierarchy (e.g. a LazySelectionClassifier of a hierarchical selector)
    gets the table's restricted to those columns (:meth:`FeatureHierarchy.restrict`). An empty mask
    leaves nothing to learn from: the training class priors (``DummyClassifier(strategy="prior")``).
    An ``SVC`` with a polynomial or linear kernel and no ``probability`` is fitted on its Gram matrix
    (the same model, much faster on sparse rows).

    Parameters
    ----------
    clf_spec : MethodSpec
        The classifier (built afresh by :meth:`MethodSpec.build`).
    X_tr, X_te : sparse matrix
        The training and test parts (all columns).
    y_tr : array-like
        The training labels.
    mask : array of bool, shape (n_features,)
        The selected columns.
    hierarchy : FeatureHierarchy, optional
        The table's, for a classifier that takes one.

    Returns
    -------
    tuple
        Predictions, class scores (``predict_proba``, else ``decision_function``, else None) and classes.

    Examples
    --------
    >>> from selection.evaluation.specs import method_spec
    >>> X = sp.csr_matrix([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> pred, proba, classes = eager_classify(method_spec("nb", "classifier"), X, [1, 1, 0, 0], X[:2],
    ...                                       np.array([True, False]))
    >>> pred.tolist(), classes.tolist()
    ([1, 1], [0, 1])
    >>> eager_classify(method_spec("nb", "classifier"), X, [1, 1, 1, 0], X[:1], np.zeros(2, bool))[0].tolist()
    [1]
    """
    idx = np.flatnonzero(mask)
    if len(idx) == 0:  # no features: the training class priors
        prior = DummyClassifier(strategy="prior").fit(np.zeros((len(y_tr), 1)), y_tr)
        none = np.zeros((X_te.shape[0], 1))
        return prior.predict(none), prior.predict_proba(none), prior.classes_
    Xs_tr, Xs_te = X_tr[:, idx], X_te[:, idx]
    with warnings.catch_warnings():
        # scikit-learn 1.9 deprecates SVC's `probability` argument (an SVC built with it warns when cloned)
        warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated", category=FutureWarning)
        over = None
        if hierarchy is not None and clf_spec.takes_hierarchy:
            over = hierarchy if len(idx) == hierarchy.n_nodes else hierarchy.restrict(idx)
        clf = clf_spec.build(over)
        if isinstance(clf, SVC) and clf.kernel in ("poly", "linear") and not clf.probability:
            clf = _GramSVC(clf)
        clf.fit(Xs_tr, y_tr)
    return clf.predict(Xs_te), _scores(clf, Xs_te), clf.classes_
