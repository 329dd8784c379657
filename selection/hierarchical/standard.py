"""SIG and SC: standard (flat) feature selection, the first comparison methods of the SHSEL paper.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science
2014, section 5.2) compare SHSEL with "standard feature selection" by information gain (SIG)
and by correlation with the class (SC), each with a threshold swept over 0..1.

* ``sig``, ``sc`` - :class:`StandardSelector`: the features whose normalised score reaches a
  threshold, or the best ``k`` / ``percentile``.
* the ``k`` best of a score with ties broken by feature id is :func:`selection.base.top_k_mask`;
  TSEL's chi-square step (:mod:`selection.hierarchical.tsel`) is the same standard selection
  restricted to its representatives.
"""

from __future__ import annotations

import math
import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from kg.sklearn_compat import Interval, StrOptions
from selection.base import BINARIZE, HIERARCHY, HierarchicalSelector, top_k_mask
from selection.hierarchical.shsel import THRESHOLD_GRID
from selection.measures.relevance import ClassCounts, feature_relevance

__all__ = ["StandardSelector"]


def _check_k(k, percentile, n: int, what: str = "") -> int | None:
    """The number of features a ``k`` / ``percentile`` setting keeps (None: use a threshold)."""
    if k is not None and percentile is not None:
        raise ValueError(f"give at most one of {what}k and {what}percentile")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise ValueError(f"{what}k must be a non-negative integer, got {k!r}")
        if k > n:
            raise ValueError(f"{what}k={k} is more than the {n} features to choose from")
        return int(k)
    if percentile is not None:
        if not isinstance(percentile, numbers.Real) or not 0 <= percentile <= 100:
            raise ValueError(f"{what}percentile must be in [0, 100], got {percentile!r}")
        return int(math.ceil(n * float(percentile) / 100 - 1e-9))
    return None


class StandardSelector(HierarchicalSelector):
    """Standard (flat) feature selection by a relevance measure: SIG and SC of the paper.

    Keeps every feature whose (normalised) score is ``>= threshold``, or the ``k`` best, or
    the best ``percentile`` percent (rounded up). The hierarchy is ignored.

    The paper ran RapidMiner's "Weight by Information Gain / Correlation" followed by
    "Select by Weights" and swept thresholds 0..1. RapidMiner normalises weights to [0, 1]
    by default (``(w - min) / (max - min)``), which is what makes a 0..1 sweep meaningful
    for IG (raw IG values of single binary features are mostly far below 1); ``normalize``
    does the same (if all scores are equal, all normalise to 1).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Accepted for a uniform interface (and the names of the selected features); not used.
    measure : {"ig", "correlation"}
        Information gain (SIG) or absolute Pearson correlation with the class (SC).
    threshold : float, default 0.5
        Used when neither ``k`` nor ``percentile`` is given.
    k : int, optional
        Keep the ``k`` best features (ties to the smaller feature id).
    percentile : float, optional
        Keep the best ``ceil(percentile% * n_features)`` features.
    normalize : bool, default True
        Compare the threshold with the scores scaled to [0, 1] (RapidMiner's default).
    binarize : float or None
        See :mod:`selection.base`.

    Attributes
    ----------
    scores_ : ndarray
        The raw measure per feature.
    normalized_scores_ : ndarray
        The scores the threshold is compared with.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> StandardSelector(measure="ig", threshold=0.5).fit(X, [1, 1, 0, 0]).get_support().tolist()
    [True, False, True]
    >>> StandardSelector(k=1).fit(X, [1, 1, 0, 0]).get_support().tolist()   # tie: smaller id
    [True, False, False]
    """

    #: The thresholds the protocols sweep (``shsel2014``); see :meth:`supports_for_thresholds`.
    threshold_grid = THRESHOLD_GRID

    _parameter_constraints = {
        "hierarchy": HIERARCHY,
        "measure": [StrOptions({"ig", "correlation"})],
        "threshold": [Interval(Real, None, None, closed="neither")],
        "k": [Interval(Integral, 0, None, closed="left"), None],
        "percentile": [Interval(Real, 0, 100, closed="both"), None],
        "normalize": ["boolean"],
        "binarize": BINARIZE,
    }

    def __init__(self, hierarchy=None, *, measure="ig", threshold=0.5, k=None, percentile=None,
                 normalize=True, binarize=None):
        self.hierarchy = hierarchy
        self.measure = measure
        self.threshold = threshold
        self.k = k
        self.percentile = percentile
        self.normalize = normalize
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        n = X.shape[1]
        keep = _check_k(self.k, self.percentile, n)
        scores = feature_relevance(self.measure, X, y, ClassCounts(X, y), allowed=("ig", "correlation"))
        lo, hi = scores.min(), scores.max()
        norm = (scores - lo) / (hi - lo) if (self.normalize and hi > lo) else (
            np.ones_like(scores) if self.normalize else scores)
        self.scores_ = scores
        self.normalized_scores_ = norm
        if keep is not None:
            self.support_ = top_k_mask(scores, keep, hierarchy.node_ids)
        else:
            self.support_ = norm >= float(self.threshold)

    def supports_for_thresholds(self, thresholds) -> np.ndarray:
        """Supports for many thresholds from this fit.

        Row ``i`` equals ``get_support()`` of a refit with ``threshold=thresholds[i]``; with
        ``k`` or ``percentile`` set the threshold is not used, so every row is the support.

        Parameters
        ----------
        thresholds : float or array of float

        Returns
        -------
        ndarray of bool, shape (len(thresholds), n_features)
        """
        check_is_fitted(self, "support_")
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if self.k is not None or self.percentile is not None:
            return np.repeat(self.support_[None, :], t.size, axis=0)
        return self.normalized_scores_[None, :] >= t[:, None]
