"""A fitted model scored without scikit-learn: the linear form of an eager selection followed by Bernoulli naive
Bayes.

The model ``Pipeline([("selector", s), ("classifier", BernoulliNB)])`` that ``kgfs fit`` writes by default is a
linear function of the instance's features: Bernoulli NB's joint log-likelihood of class ``c`` is

    ``sum_j x_j [log P(x_j=1|c) - log P(x_j=0|c)] + log P(c) + sum_j log P(x_j=0|c)``

over the selected features ``j`` (``x_j`` binarised at NB's ``binarize`` threshold), and its probabilities are
that, normalised over the classes. :meth:`LinearForm.of` reads the weights and the bias off the fitted estimator
(the unselected features weigh 0), so that a kept model can score a new table with NumPy and SciPy's sparse
matrices alone: importing scikit-learn (about 0.8 s, most of it ``scipy.stats``) is not needed to predict.

The form is kept only when it gives the estimator's own probabilities on the rows it is checked against (the
training table: :meth:`LinearForm.of` with ``check``), to 1e-9; a selector that does more than keep columns, or
another classifier, has no form (``None``) and is scored by the estimator itself.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> from sklearn.naive_bayes import BernoulliNB
>>> from sklearn.feature_selection import VarianceThreshold
>>> from sklearn.pipeline import Pipeline
>>> X = sp.csr_matrix(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 0], [0, 0, 0]], dtype=float))
>>> est = Pipeline([("selector", VarianceThreshold()), ("classifier", BernoulliNB())]).fit(X, ["a", "a", "b", "b"])
>>> form = LinearForm.of(est, 3, check=X)
>>> bool(np.allclose(form.predict_proba(X), est.predict_proba(X), atol=1e-12, rtol=0))
True
>>> form.classes.tolist(), form.support.tolist()
(['a', 'b'], [True, True, True])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["TOLERANCE", "LinearForm"]

#: The largest difference from the estimator's probabilities a form may have on the rows it is checked against.
TOLERANCE = 1e-9
_KEYS = ("support", "weights", "bias", "classes", "binarize")


@dataclass(frozen=True)
class LinearForm:
    """Scores ``X @ weights + bias`` normalised over the classes (a softmax of the joint log-likelihoods).

    Attributes
    ----------
    support : ndarray of bool, shape (n_features,)
        The selected features (the others weigh 0).
    weights : ndarray, shape (n_features, n_classes)
        What a present feature adds to each class's log-likelihood.
    bias : ndarray, shape (n_classes,)
    classes : ndarray, shape (n_classes,)
        The estimator's ``classes_``.
    binarize : float or None
        A value above it is a present feature (NB's ``binarize``); ``None``: the values as they are.
    """

    support: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    classes: np.ndarray
    binarize: float | None

    @classmethod
    def of(cls, estimator, n_features: int, check=None) -> LinearForm | None:
        """The form of a fitted ``Pipeline`` of a column selector and ``BernoulliNB``, or ``None`` (another
        estimator, or one whose probabilities the form does not give on ``check``, a matrix over the model's
        ``n_features`` columns)."""
        from sklearn.feature_selection import SelectorMixin
        from sklearn.naive_bayes import BernoulliNB

        steps = getattr(estimator, "steps", None)
        if not steps or len(steps) != 2:
            return None
        selector, nb = steps[0][1], steps[1][1]
        if type(nb) is not BernoulliNB or not isinstance(selector, SelectorMixin) \
                or type(selector).transform is not SelectorMixin.transform:
            return None
        support = np.asarray(selector.get_support(), dtype=bool)
        classes = np.asarray(nb.classes_)
        if support.shape != (n_features,) or classes.dtype.kind not in "iufUSb":  # arrays kept without pickle
            return None
        log_p1 = np.asarray(nb.feature_log_prob_, dtype=np.float64)  # (n_classes, n_selected)
        log_p0 = np.log(1 - np.exp(log_p1))  # as BernoulliNB computes it
        weights = np.zeros((n_features, len(classes)))
        weights[support] = (log_p1 - log_p0).T
        bias = np.asarray(nb.class_log_prior_, dtype=np.float64) + log_p0.sum(axis=1)
        binarize = None if nb.binarize is None else float(nb.binarize)
        form = cls(support, weights, bias, classes, binarize)
        if check is not None:
            X = sp.csr_matrix(check, dtype=np.float64)
            if X.shape[0] and not np.allclose(form.predict_proba(X), estimator.predict_proba(X), rtol=0,
                                              atol=TOLERANCE):
                return None
        return form

    def decision(self, X) -> np.ndarray:
        """The classes' joint log-likelihoods, shape ``(n_samples, n_classes)``."""
        X = sp.csr_matrix(X, dtype=np.float64)
        if self.binarize is not None:
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.float64)
        return np.asarray(X @ self.weights) + self.bias

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (columns: :attr:`classes`)."""
        jll = self.decision(X)
        top = jll.max(axis=1, keepdims=True)
        log_norm = top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True))
        return np.exp(jll - log_norm)

    def predict(self, X) -> np.ndarray:
        return self.classes[np.argmax(self.decision(X), axis=1)]

    def explain(self, X, top: int = 3) -> tuple[np.ndarray, list[list[tuple[int, float]]]]:
        """Class probabilities and, per row, the selected features present in it that weigh most in its prediction:
        ``(column, weight)`` pairs, heaviest first, at most ``top``, of positive weight only. A feature's weight is
        what it adds to the predicted class's log-likelihood against the runner-up's (the log-odds of the
        prediction are these terms and the bias). Vectorised: no loop over the rows."""
        X = sp.csr_matrix(X, dtype=np.float64)
        proba = self.predict_proba(X)
        k = proba.shape[1]
        order = np.argsort(-proba, axis=1, kind="stable")
        best = order[:, 0]
        second = order[:, 1] if k > 1 else best
        present = sp.csr_matrix(X[:, self.support] if self.binarize is None else X[:, self.support] > self.binarize,
                                dtype=np.float64)
        present.eliminate_zeros()
        cols = np.flatnonzero(self.support)[present.indices]
        rows = np.repeat(np.arange(X.shape[0]), np.diff(present.indptr))
        weights = self.weights[cols, best[rows]] - self.weights[cols, second[rows]]
        keep = weights > 0
        rows, cols, weights = rows[keep], cols[keep], weights[keep]
        at = np.lexsort((cols, -weights, rows))  # by row, the heaviest first, ties by column
        rows, cols, weights = rows[at], cols[at], weights[at]
        starts = np.searchsorted(rows, np.arange(X.shape[0]))
        rank = np.arange(len(rows)) - starts[rows]
        chosen = rank < top
        out: list[list[tuple[int, float]]] = [[] for _ in range(X.shape[0])]
        for r, c, w in zip(rows[chosen].tolist(), cols[chosen].tolist(), weights[chosen].tolist(), strict=True):
            out[r].append((c, w))
        return proba, out

    # ----------------------------------------------------------------- kept in a model folder
    def to_arrays(self, prefix: str = "form.") -> dict[str, np.ndarray]:
        """The form as named arrays (no object arrays: saved and read with ``allow_pickle=False``)."""
        binarize = np.array([np.nan if self.binarize is None else self.binarize])
        values = (self.support, self.weights, self.bias, self.classes, binarize)
        return {prefix + k: np.asarray(v) for k, v in zip(_KEYS, values, strict=True)}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str = "form.") -> LinearForm | None:
        """The form :meth:`to_arrays` wrote, ``None`` when the arrays hold none; raises ``ValueError`` when they
        are not a form."""
        if prefix + "weights" not in arrays:
            return None
        support, weights, bias, classes, binarize = (np.asarray(arrays[prefix + k]) for k in _KEYS)
        k = len(classes)
        if support.dtype != bool or support.ndim != 1 or weights.shape != (len(support), k) \
                or bias.shape != (k,) or binarize.shape != (1,):
            raise ValueError("the linear form's arrays do not fit together")
        return cls(support, weights.astype(np.float64), bias.astype(np.float64), classes,
                   None if np.isnan(binarize[0]) else float(binarize[0]))
