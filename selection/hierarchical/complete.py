"""CompleteFS: the baseline that keeps every feature.

"CompleteFS" in Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces*
(Discovery Science 2014, section 5.2); "No FS" in the RPV paper (da Silva, Plastino & Freitas
2020, section 5.3.1).
"""

from __future__ import annotations

import numpy as np

from selection.base import BINARIZE, HIERARCHY, HierarchicalSelector

__all__ = ["CompleteFS"]


class CompleteFS(HierarchicalSelector):
    """Keep all features (the "no selection" baseline of every paper).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        The DAG over the columns of ``X``; only names the features.
    binarize : float or None
        See :mod:`selection.base`.

    Examples
    --------
    >>> import numpy as np
    >>> CompleteFS().fit(np.array([[1, 0], [0, 1]]), [0, 1]).get_support().tolist()
    [True, True]
    """

    _parameter_constraints = {"hierarchy": HIERARCHY, "binarize": BINARIZE}

    def __init__(self, hierarchy=None, *, binarize=None):
        self.hierarchy = hierarchy
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        self.support_ = np.ones(X.shape[1], dtype=bool)
