"""Shared machinery of the hierarchical selectors: input validation and the hierarchy check.

Every selector is a scikit-learn estimator (``SelectorMixin, BaseEstimator``) whose first
constructor parameter is the :class:`~kg.hierarchy.FeatureHierarchy` over the columns of
``X``. ``hierarchy=None`` means a flat hierarchy (no edges), so every selector also runs on
tables that come without one (and under scikit-learn's estimator checks).

Features are binary. A value outside {0, 1} raises a ``ValueError`` that names it, unless
the selector is given ``binarize=t``, in which case values ``> t`` count as 1 (as
``sklearn.preprocessing.Binarizer`` does); that makes count data usable directly.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from kg.hierarchy import FeatureHierarchy

__all__ = ["HierarchicalSelector", "SupportMaskMixin", "as_binary_csr", "check_hierarchy"]


def as_binary_csr(X, binarize: float | None = None, *, what: str = "X") -> sp.csr_matrix:
    """Return ``X`` as a csr matrix of float 0/1, densifying nothing.

    ``binarize=None`` demands values in {0, 1}; a float ``t`` maps ``value > t`` to 1.
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
    X = X.astype(np.float64)
    if binarize is None:
        bad = (X.data != 0) & (X.data != 1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            row = int(np.searchsorted(X.indptr, k, side="right") - 1)
            raise ValueError(
                f"{what} must be binary (0/1): value {X.data[k].item()!r} at row {row}, column "
                f"{int(X.indices[k])}; pass binarize=<threshold> to binarise count data"
            )
    else:
        X = X.copy()
        X.data = (X.data > binarize).astype(np.float64)
    X.eliminate_zeros()
    return X


def check_hierarchy(hierarchy: FeatureHierarchy | None, n_features: int) -> FeatureHierarchy:
    """The hierarchy to use for ``n_features`` columns; ``None`` gives a flat one."""
    if hierarchy is None:
        return FeatureHierarchy([str(i) for i in range(n_features)], [], [])
    if not isinstance(hierarchy, FeatureHierarchy):
        raise TypeError(f"hierarchy must be a FeatureHierarchy or None, got {type(hierarchy).__name__}")
    if hierarchy.n_nodes != n_features:
        raise ValueError(
            f"the hierarchy has {hierarchy.n_nodes} nodes but X has {n_features} features; "
            "the hierarchy's nodes must be X's columns, in the same order"
        )
    return hierarchy


class SupportMaskMixin:
    """``_get_support_mask`` for selectors that store their boolean mask in ``support_``."""

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_


class HierarchicalSelector(SupportMaskMixin, SelectorMixin, BaseEstimator):
    """Base class: validates ``X``/``y`` and the hierarchy; subclasses implement ``_fit``.

    Subclasses set ``support_`` (boolean mask over features) and may set ``scores_`` in
    ``_fit(X, y, hierarchy)``, where ``X`` is a binary csr matrix and ``y`` a label array.
    The validated hierarchy is stored as ``hierarchy_``.
    """

    _supervised = True

    def _validate(self, X, y=None, *, reset: bool = True):
        if y is None and self._supervised:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None (class labels)")
        if y is not None:
            X, y = validate_data(
                self, X, y, accept_sparse="csr", reset=reset, dtype=np.float64,
                ensure_min_features=1,
            )
            check_classification_targets(y)
            if len(np.unique(y)) < 2:
                raise ValueError(
                    f"y has a single class ({np.unique(y)[0].item()!r}); feature relevance needs more than one class"
                )
        else:
            X = validate_data(self, X, accept_sparse="csr", reset=reset, dtype=np.float64)
        X = as_binary_csr(X, getattr(self, "binarize", None))
        return X, y

    def fit(self, X, y=None):
        """Fit the selector on a binary table ``X`` (n_instances x n_features) and labels ``y``."""
        X, y = self._validate(X, y)
        self.hierarchy_ = check_hierarchy(getattr(self, "hierarchy", None), X.shape[1])
        self._fit(X, y, self.hierarchy_)
        return self

    def _fit(self, X: sp.csr_matrix, y, hierarchy: FeatureHierarchy) -> None:  # pragma: no cover
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = self._supervised
        return tags
