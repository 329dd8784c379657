"""The GA tree as a scikit-learn classifier: search, then fit the best tree's base classifiers."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from selection.class_hierarchy.ga_tree.drawing import draw_tree
from selection.class_hierarchy.ga_tree.fitness import SCORINGS, _Fitness
from selection.class_hierarchy.ga_tree.search import run_ga

__all__ = ["GATreeClassifier"]

log = logging.getLogger(__name__)


def _check_numeric(X, what="X"):
    """Raise a ValueError naming the first non-numeric value of ``X`` (row, column)."""
    if sp.issparse(X):
        return
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        cols = list(X.columns)
        arr = X.to_numpy(dtype=object)
    else:
        arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if arr.dtype.kind in "biuf":
            return
        cols = None
        arr = np.asarray(arr, dtype=object)
    if arr.ndim != 2:
        return
    for (r, j), v in np.ndenumerate(arr):
        if isinstance(v, (bool, np.bool_)) or v is None:
            continue
        if isinstance(v, (int, float, np.number)):
            continue
        if isinstance(v, str):
            try:
                float(v)
                continue
            except ValueError:
                pass
        elif not isinstance(v, (str, bytes)):
            continue  # let scikit-learn's validation report other types
        name = f"column {j}" + (f" ({cols[j]!r})" if cols is not None else "")
        raise ValueError(f"{what} must be numeric: value {v!r} at row {r}, {name} is not a number")


def _check_classes(y, classes, counts):
    one = [c for c, n in zip(classes.tolist(), counts.tolist()) if n < 2]
    if one:
        raise ValueError(
            f"class {one[0]!r} has only one sample (classes with one sample: {one[:10]}); "
            "the GA tree needs at least 2 samples per class (nearest hits, the validation split "
            "and cross-validation all need a second sample)"
        )


class GATreeClassifier(ClassifierMixin, BaseEstimator):
    """Feature-selected hierarchical classifier designed by a GA (Freeman, Kulic & Basir 2011).

    Parameters
    ----------
    scoring : {"count-relief", "relief", "fisher", "fisher-scaled", "cv", "validation"}
        Accuracy estimate: ``"validation"`` is method 1 (the whole tree on a validation split);
        the others are method 2 (one estimate per base classifier, combined by Eq. 7).
    base_estimator : classifier or None
        Cloned per base classifier; default 1-NN (``KNeighborsClassifier(n_neighbors=1)``).
        Plain Euclidean k-NN is scored with vectorised distances; any other classifier is
        fitted for real during the search (``"cv"``/``"validation"``; slow).
    alpha_t, alpha_b, alpha_l : float
        Penalties of Eq. 10 for distinct features, features summed over base classifiers, and
        levels. The paper gives no values; the defaults 0.05 each were chosen on the paper's data
        sets (``docs/ga_tree.md``).
    population_size, n_replace, n_generations : int
        GA size (paper: 500, 50, 70).
    mutation_rate : float
        Probability that a child gets a one-point mutation.
    feature_prob : float
        Probability that a feature gene of a random initial genome is 1.
    hierarchical : bool
        ``False``: flat GA feature selection (one base classifier over all classes; the paper's
        "features only" comparison).
    relief_k : int
        ``K`` of RELIEF (Eq. 6).
    cv : int
        Folds of the ``"cv"`` estimate.
    validation_fraction : float
        Part of the data held out by method 1.
    cache : bool
        Cache fitness of equivalent genomes and base-classifier estimates (``False``: for timing).
    singleton_classes : {"raise", "keep"}
        A class with one sample raises (default); ``"keep"`` keeps it (its estimate is 0: it has
        no nearest hit; method 1 keeps it in the training part).
    random_state : int, Generator or None
        Seed of the GA and the splits (default 0: reproducible).

    Attributes
    ----------
    classes_ : ndarray
    tree_ : GATree
        The best layout (class codes index ``classes_``).
    genome_ : Genome
    score_, accuracy_estimate_ : float
        Eq. 10 score and ``A_all`` of the best genome.
    estimators_ : list
        Fitted base classifier per node (or an int: the only output seen in training).
    support_ : bool ndarray
        Features used anywhere in the tree.
    hierarchical_ : bool
    history_ : list of float
        Best score after each generation.
    n_evaluations_, n_cache_hits_, n_node_computations_ : int

    Examples
    --------
    >>> from selection.synthetic.ga import make_ga_dataset
    >>> d = make_ga_dataset(1, n_per_class=25, random_state=1)
    >>> clf = GATreeClassifier(population_size=100, n_replace=20, n_generations=20).fit(d.X, d.y)
    >>> clf.score(d.X, d.y) == 1.0, clf.tree_.n_base >= 2
    (True, True)
    """

    def __init__(self, scoring="count-relief", base_estimator=None, *, alpha_t=0.05, alpha_b=0.05, alpha_l=0.05,
                 population_size=500, n_replace=50, n_generations=70, mutation_rate=0.5, feature_prob=0.5,
                 hierarchical=True, relief_k=1, cv=5, validation_fraction=0.25, cache=True,
                 singleton_classes="raise", random_state=0):
        self.scoring = scoring
        self.base_estimator = base_estimator
        self.alpha_t = alpha_t
        self.alpha_b = alpha_b
        self.alpha_l = alpha_l
        self.population_size = population_size
        self.n_replace = n_replace
        self.n_generations = n_generations
        self.mutation_rate = mutation_rate
        self.feature_prob = feature_prob
        self.hierarchical = hierarchical
        self.relief_k = relief_k
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.cache = cache
        self.singleton_classes = singleton_classes
        self.random_state = random_state

    def _base(self):
        return KNeighborsClassifier(n_neighbors=1) if self.base_estimator is None else self.base_estimator

    def _validate_params_here(self):
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {self.scoring!r}")
        for name in ("alpha_t", "alpha_b", "alpha_l"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or v < 0:
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        for name in ("population_size", "n_replace", "n_generations", "relief_k", "cv"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < (0 if name == "n_generations" else 1):
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.singleton_classes not in ("raise", "keep"):
            raise ValueError(f"singleton_classes must be 'raise' or 'keep', got {self.singleton_classes!r}")
        if not 0 < self.validation_fraction < 1:
            raise ValueError(f"validation_fraction must be in (0, 1), got {self.validation_fraction!r}")

    def fit(self, X, y):
        """Run the GA on ``(X, y)``, then fit the best tree's base classifiers on all of it."""
        self._validate_params_here()
        _check_numeric(X)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        return self._fit_validated(X, y)

    def _fit_validated(self, X, y):
        self.classes_, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
        codes = codes.reshape(-1)
        C = len(self.classes_)
        if C < 2:
            raise ValueError(f"y has a single class ({self.classes_[0]!r}): one class is not enough for a classifier")
        if self.singleton_classes == "raise":
            _check_classes(y, self.classes_, counts)
        elif (counts < 2).any():
            log.warning("GATreeClassifier: class(es) %s have one sample; kept, with an estimate of 0 "
                        "(no nearest hit) and never in the validation part",
                        self.classes_[counts < 2].tolist()[:10])
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        self.hierarchical_ = bool(self.hierarchical) and C >= 3
        if self.hierarchical and C < 3:
            log.warning("GATreeClassifier: %d classes; a hierarchy needs at least 3 (C-1 = 1 base classifier), "
                        "so the search is flat GA feature selection", C)
        rng = np.random.default_rng(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        F = X.shape[1]
        fit = _Fitness(X, codes, C, scoring=self.scoring, base_estimator=self._base(), alpha_t=self.alpha_t,
                       alpha_b=self.alpha_b, alpha_l=self.alpha_l, relief_k=self.relief_k,
                       cv=int(max(2, min(self.cv, counts.min()))) if self.scoring == "cv" else self.cv,
                       validation_fraction=self.validation_fraction, seed=seed, cache=self.cache)
        res = run_ga(fit, C, F, population_size=self.population_size, n_replace=self.n_replace,
                     n_generations=self.n_generations, mutation_rate=self.mutation_rate,
                     feature_prob=self.feature_prob, flat=not self.hierarchical_, rng=rng)
        self.genome_, self.tree_ = res.genome, res.tree
        self.score_, self.accuracy_estimate_ = res.score, res.accuracy
        self.history_ = res.history
        self.n_evaluations_, self.n_cache_hits_ = res.n_evaluations, res.n_cache_hits
        self.n_node_computations_ = res.n_node_computations
        self.support_ = np.zeros(F, dtype=bool)
        self.support_[self.tree_.used_features()] = True
        self._fit_nodes(X, codes)
        return self

    def _fit_nodes(self, X, codes):
        tree = self.tree_
        self.estimators_ = []
        self._sparse_fit = sp.issparse(X)
        counts = np.bincount(codes, minlength=len(self.classes_))
        self._leaf_majority = {}
        for grp in tree.leaf_groups():
            g = list(grp)
            self._leaf_majority[grp] = int(g[int(np.argmax(counts[g]))])
        for node in tree.nodes:
            groups = node.groups()
            gmap = np.full(len(self.classes_), -1, dtype=np.int64)
            for gi, grp in enumerate(groups):
                gmap[list(grp)] = gi
            rows = np.flatnonzero(gmap[codes] >= 0)
            lab = gmap[codes[rows]]
            if len(node.features) == 0 or np.unique(lab).size == 1:
                est = int(np.argmax(np.bincount(lab, minlength=len(groups))))
            else:
                est = clone(self._base()).fit(X[rows][:, node.features], lab)
            self.estimators_.append(est)

    def _node_block(self, X, rows, feats):
        """The per-node block, in the format the base classifiers were fitted on."""
        B = X[:, feats] if rows is None else X[rows][:, feats]
        if sp.issparse(B) and not self._sparse_fit:
            B = B.toarray()
        return B

    def _node_groups(self, node, Xb, rows):
        est = self.estimators_[node.id]
        if isinstance(est, (int, np.integer)):
            return np.full(len(rows), int(est))
        return np.asarray(est.predict(self._node_block(Xb, rows, node.features)), dtype=np.int64)

    def _validate_X(self, X):
        check_is_fitted(self, "estimators_")
        _check_numeric(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return sp.csr_matrix(X) if sp.issparse(X) else X

    def predict_codes(self, X) -> np.ndarray:
        """Class code (index into ``classes_``) of every sample, routed top-down."""
        X = self._validate_X(X)
        return self.tree_.route(X.shape[0], lambda node, at: self._node_groups(node, X, at),
                                self._leaf_majority.__getitem__)

    def predict(self, X):
        """Predicted labels: each sample follows its base classifiers' decisions from the root."""
        codes = self.predict_codes(X)  # checks that the classifier is fitted
        return self.classes_[codes]

    def _has_proba(self):
        return hasattr(self._base(), "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities: the product of the base classifiers' output probabilities on the
        path to each class (an unresolved leaf gives all to its majority class).

        With 1-NN every factor is 0 or 1, so the argmax equals :meth:`predict`.
        """
        X = self._validate_X(X)
        n, C = X.shape[0], len(self.classes_)
        tree = self.tree_
        P = np.zeros((n, C))
        if not tree.nodes:
            P[:, self._leaf_majority[tuple(range(C))]] = 1.0
            return P
        reach = {0: np.ones(n)}
        for node in tree.nodes:
            w = reach[node.id]
            est = self.estimators_[node.id]
            groups = node.groups()
            if isinstance(est, (int, np.integer)):
                G = np.zeros((n, len(groups)))
                G[:, int(est)] = 1.0
            else:
                G = np.zeros((n, len(groups)))
                pr = est.predict_proba(self._node_block(X, None, node.features))
                G[:, np.asarray(est.classes_, dtype=np.int64)] = pr
            for gi, grp in enumerate(groups):
                o = node.output_of[grp[0]]
                if o in node.children:
                    reach[node.children[o]] = w * G[:, gi]
                else:
                    P[:, self._leaf_majority[grp]] += w * G[:, gi]
        return P

    def describe(self) -> str:
        """The tree as text, with class labels and feature names."""
        check_is_fitted(self, "tree_")
        return self.tree_.describe(self.classes_, self._feature_names())

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = getattr(self, "display_feature_names_", None)  # set by GATreeSelector
        return list(names) if names is not None else [f"f{j}" for j in range(self.n_features_in_)]

    def draw(self, path, *, title: str | None = None) -> Path:
        """Draw the tree (base classifiers with their features, leaves with classes) as a PNG."""
        check_is_fitted(self, "tree_")
        return draw_tree(self.tree_, path, class_names=self.classes_, feature_names=self._feature_names(),
                         title=title)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
