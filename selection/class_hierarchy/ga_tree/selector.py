"""The GA tree as a registered feature selector (``ga-tree``): the features of the best tree."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from kg.sklearn_compat import HasMethods, Interval, StrOptions
from selection.base import BINARIZE, HIERARCHY, HierarchicalSelector
from selection.class_hierarchy.ga_tree.classifier import SCORINGS, GATreeClassifier, _check_numeric

__all__ = ["GATreeSelector"]


class GATreeSelector(HierarchicalSelector):
    """The GA tree as a feature selector: the support is the union of the best tree's features.

    Registered as ``ga-tree`` (kind ``eager``: one subset for all instances), so
    ``kgfs evaluate --selectors ga-tree`` runs it on a table's multi-class labels; the feature
    hierarchy is accepted and ignored (the method has none). The fitted
    :class:`GATreeClassifier` is ``classifier_`` (its tree: ``tree_``). With fewer than 3
    classes the search is flat GA feature selection (see :class:`GATreeClassifier`). A class
    with one sample is kept (``singleton_classes="keep"``, logged): a selector still returns a
    subset; ``kgfs evaluate``'s stratified folds never produce one.

    For tiny data (fewer than 100 training samples) the GA is scaled down: population
    ``max(20, 5 n)`` capped at ``population_size``, ``n_replace`` and ``n_generations`` in
    proportion (``scale_small=False`` keeps the given sizes). Cost grows with
    ``n_samples^2 x n_features`` per new base classifier; the paper's method is meant for few
    features.

    Parameters
    ----------
    hierarchy : FeatureHierarchy or None
        Ignored (the method has no feature hierarchy); accepted for the uniform selector API.
    scoring : {"count-relief", "relief", "fisher", "fisher-scaled", "cv", "validation"}
        How a tree's accuracy is estimated (see GATreeClassifier).
    alpha_t, alpha_b, alpha_l : float
        Penalties of Eq. 10 for distinct features, features summed over base classifiers, and levels.
    population_size, n_replace, n_generations : int
        GA size (the paper: 500, 50, 70).
    base_estimator : classifier or None
        Base classifier of the tree's nodes (default 1-NN).
    scale_small : bool
        Scale the GA down for fewer than 100 training samples.
    random_state : int
        Seed of the GA and the splits.
    binarize : float or None
        Map values ``> binarize`` to 1 first.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.column_stack([y == 0, y == 1, y == 2, rng.random(30) < 0.5]).astype(float)
    >>> s = GATreeSelector(random_state=0).fit(X, y)
    >>> s.get_support().tolist()  # two indicator features separate the 3 classes; the noise is dropped
    [False, True, True, False]
    """

    _parameter_constraints = {
        "hierarchy": HIERARCHY, "scoring": [StrOptions(set(SCORINGS))],
        "alpha_t": [Interval(Real, 0, None, closed="left")], "alpha_b": [Interval(Real, 0, None, closed="left")],
        "alpha_l": [Interval(Real, 0, None, closed="left")],
        "population_size": [Interval(Integral, 1, None, closed="left")],
        "n_replace": [Interval(Integral, 1, None, closed="left")],
        "n_generations": [Interval(Integral, 0, None, closed="left")],
        "base_estimator": [HasMethods(["fit", "predict"]), None], "scale_small": ["boolean"],
        "random_state": ["random_state"], "binarize": BINARIZE,
    }

    def __init__(self, hierarchy=None, *, scoring="count-relief", alpha_t=0.05, alpha_b=0.05, alpha_l=0.05,
                 population_size=500, n_replace=50, n_generations=70, base_estimator=None, scale_small=True,
                 random_state=0, binarize=None):
        self.hierarchy = hierarchy
        self.scoring = scoring
        self.alpha_t = alpha_t
        self.alpha_b = alpha_b
        self.alpha_l = alpha_l
        self.population_size = population_size
        self.n_replace = n_replace
        self.n_generations = n_generations
        self.base_estimator = base_estimator
        self.scale_small = scale_small
        self.random_state = random_state
        self.binarize = binarize

    def _validate(self, X, y=None, *, reset=True):
        _check_numeric(X)
        return super()._validate(X, y, reset=reset)

    def _fit(self, X, y, hierarchy):
        n = X.shape[0]
        P, R, G = int(self.population_size), int(self.n_replace), int(self.n_generations)
        if self.scale_small and n < 100:
            f = max(20, 5 * n) / max(P, 1)
            if f < 1:
                P = max(20, 5 * n)
                R = max(2, int(round(R * f)))
                G = max(5, int(round(G * f)))
        clf = GATreeClassifier(self.scoring, self.base_estimator, alpha_t=self.alpha_t, alpha_b=self.alpha_b,
                               alpha_l=self.alpha_l, population_size=P, n_replace=R, n_generations=G,
                               singleton_classes="keep", random_state=self.random_state)
        clf._validate_params_here()
        clf.n_features_in_ = X.shape[1]
        clf._fit_validated(X, np.asarray(y))
        clf.display_feature_names_ = [str(n) for n in hierarchy.node_ids]  # for describe() and draw()
        self.classifier_ = clf
        self.tree_ = clf.tree_
        self.scores_ = clf.support_.astype(np.float64)
        self.support_ = clf.support_.copy()
