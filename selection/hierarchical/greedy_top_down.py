"""GreedyTopDown (Lu et al. 2013): a comparison method of the SHSEL paper.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science
2014, section 5.2) compare SHSEL with GreedyTopDown, registered as ``greedy-top-down``:
repeatedly take the best remaining feature by information gain ratio and drop its ancestors
and descendants. Computed without paths or closure matrices
(:func:`selection.measures.paths.greedy_antichain`).
"""

from __future__ import annotations

import numpy as np

from selection.base import HierarchicalSelector
from selection.measures.paths import greedy_antichain, preference_ranks
from selection.measures.relevance import ClassCounts, feature_relevance
from selection.registry import register_selector

__all__ = ["GreedyTopDown"]


class GreedyTopDown(HierarchicalSelector):
    """GreedyTopDown (Lu et al. 2013): best-first selection that drops relatives.

    The paper describes it per path: the nodes of each leaf-to-root path sorted by
    information gain ratio; repeatedly the first node is selected and its ancestors and
    descendants are removed from the sorted list. Taken per path in isolation that would
    select only the best node of each path (a path is a chain: everything on it is a
    relative), so the lists are read as one shared list over all paths (every node is on
    some path): nodes are visited in descending score; a node still available is selected
    and all its ancestors and descendants become unavailable. The selection is therefore a
    maximal antichain of the DAG (no selected feature is an ancestor of another, every other
    feature is a relative of a selected one), a mixture of levels. Ties go to the more
    general node (top-down), then to the smaller id
    (:func:`selection.measures.paths.preference_ranks`).

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Child -> parent DAG over the columns of ``X`` (``None``: flat, every feature is kept).
    measure : {"gain_ratio", "ig"}, default "gain_ratio"
        The order in which features are taken.
    check_implication : bool or "repair", default True
        See :class:`selection.base.HierarchicalSelector`.
    binarize : float or None
        See :mod:`selection.base`.

    Attributes
    ----------
    scores_ : ndarray
        The ``measure`` per feature.

    Examples
    --------
    >>> import numpy as np
    >>> from kg.hierarchy import FeatureHierarchy
    >>> h = FeatureHierarchy.from_edges([("a", "r"), ("b", "r")], nodes=["a", "b", "r"])
    >>> X = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> GreedyTopDown(h).fit(X, [1, 1, 0, 0]).get_feature_names_out().tolist()
    ['a', 'b']
    """

    def __init__(self, hierarchy=None, *, measure="gain_ratio", check_implication=True, binarize=None):
        self.hierarchy = hierarchy
        self.measure = measure
        self.check_implication = check_implication
        self.binarize = binarize

    def _fit(self, X, y, hierarchy):
        X, _ = self._check_table(X, hierarchy)
        scores = feature_relevance(self.measure, X, y, ClassCounts(X, y), allowed=("gain_ratio", "ig"))
        self.scores_ = scores
        self.support_ = greedy_antichain(hierarchy, np.argsort(-preference_ranks(scores, hierarchy)))


register_selector("greedy-top-down", lambda hierarchy=None, **kw: GreedyTopDown(hierarchy, **kw), kind="eager",
                  description="GreedyTopDown: best gain ratio first, dropping ancestors and descendants",
                  defaults={"measure": "gain_ratio"})
