"""The parameters of every registered method, declared beside its registration: readable without importing it.

:mod:`selection.registry` names each method's estimator as ``"module:Class"`` (imported on first use, as
:mod:`kg.plugins` does for kg's registries); the checks of a command's ``--param`` values
(:meth:`selection.registry.Entry.check_params`, :func:`selection.param_routing.method_params`) read the
parameters from :data:`PARAMETERS`, so that a mistyped parameter or a value out of range is refused before
scikit-learn or a selector is imported.

:data:`PARAMETERS` maps the estimator of a registration (``"module:Class"``, or ``"module:function"`` for one
built by a named function: its final step's) to its parameters: name -> ``(default, constraints)``, the
constraints in scikit-learn's notation (:mod:`selection.constraints`), the default a new instance has (a
registration's presets override it). ``hierarchy``, given by the table, is not among them. These copy what the
estimators declare themselves (``_parameter_constraints`` and ``__init__``), which stays the source of truth:
``tests/selection/test_declarations.py`` checks that every registered method's declaration here says and
accepts what its estimator's does (a new or changed parameter fails it until it is written here too).

Examples
--------
>>> default, constraints = PARAMETERS["selection.hierarchical.shsel:SHSEL"]["threshold"]
>>> default, constraints
(0.99, [Interval(type=<class 'numbers.Real'>, left=0, right=1, closed='both')])
"""

from __future__ import annotations

from numbers import Integral, Real

from selection.constraints import HasMethods, Hidden, InstancesOf, Interval, RealNotInt, StrOptions

__all__ = ["PARAMETERS"]

#: ``binarize`` (:class:`selection.base.HierarchicalSelector` and kgfs's other estimators)
_BINARIZE = {"binarize": (None, [Interval(Real, None, None, closed="neither"), None])}
#: ``check_implication`` of the eager hierarchical selectors
_CHECK_IMPLICATION = {"check_implication": (True, ["boolean", StrOptions({"repair"})])}
#: The lazy selectors' implication check (off by default, no repair) and their relevance measures.
_LAZY_CHECK = {"check_implication": (False, ["boolean"])}
_LAZY_RELEVANCE = [StrOptions({"ig", "lazyr", "r", "value_ig"})]

#: the metrics scikit-learn's ``KNeighborsClassifier`` names (of the version the tests check against)
_KNN_METRICS = {
    "braycurtis", "canberra", "chebyshev", "cityblock", "correlation", "cosine", "dice", "euclidean", "hamming",
    "haversine", "infinity", "jaccard", "l1", "l2", "mahalanobis", "manhattan", "minkowski", "nan_euclidean",
    "p", "precomputed", "pyfunc", "rogerstanimoto", "russellrao", "seuclidean", "sokalmichener", "sokalsneath",
    "sqeuclidean", "yule"
}

PARAMETERS: dict[str, dict[str, tuple]] = {
    "selection.hierarchical.shsel:SHSEL": {
        **_BINARIZE,
        **_CHECK_IMPLICATION,
        "ig_unit": ("bits", [StrOptions({"bits", "nats"})]),
        "path_rule": ("any", [StrOptions({"all", "any"})]),
        "prune": (True, ["boolean"]),
        "prune_compare": (">=", [StrOptions({">", ">="})]),
        "relevance": ("ig", [StrOptions({"correlation", "ig"})]),
        "threshold": (0.99, [Interval(Real, 0, 1, closed="both")]),
    },
    "selection.hierarchical.standard:StandardSelector": {
        **_BINARIZE,
        "k": (None, [Interval(Integral, 0, None, closed="left"), None]),
        "measure": ("ig", [StrOptions({"correlation", "ig"})]),
        "normalize": (True, ["boolean"]),
        "percentile": (None, [Interval(Real, 0, 100, closed="both"), None]),
        "threshold": (0.5, [Interval(Real, None, None, closed="neither")]),
    },
    "selection.hierarchical.tsel:TSEL": {
        **_BINARIZE,
        **_CHECK_IMPLICATION,
        "chi2_alpha": (0.05, [Interval(Real, 0, 1, closed="both")]),
        "chi2_k": (None, [Interval(Integral, 0, None, closed="left"), None]),
        "chi2_percentile": (None, [Interval(Real, 0, 100, closed="both"), None]),
        "measure": ("lift", [StrOptions({"ig", "lift"})]),
    },
    "selection.hierarchical.greedy_top_down:GreedyTopDown": {
        **_BINARIZE,
        **_CHECK_IMPLICATION,
        "measure": ("gain_ratio", [StrOptions({"gain_ratio", "ig"})]),
    },
    "selection.hierarchical.hill_climbing:HillClimbing": {
        "beta": (0.05, [Interval(Real, 0, None, closed="left")]),
        **_BINARIZE,
        "k": (10, [Interval(Integral, 1, None, closed="left")]),
        "max_instances": (20000, [Interval(Integral, 1, None, closed="left")]),
    },
    "selection.hierarchical.complete:CompleteFS": {
        **_BINARIZE,
    },
    "selection.lazy.selectors:RPV": {
        **_BINARIZE,
        **_LAZY_CHECK,
        "relevance": ("lazyr", _LAZY_RELEVANCE),
        "smoothing": (None, [StrOptions({"laplace"}), None]),
    },
    "selection.lazy.selectors:HIP": {
        **_BINARIZE,
        **_LAZY_CHECK,
    },
    "selection.lazy.selectors:MR": {
        **_BINARIZE,
        "check_implication": (True, ["boolean"]),
        "relevance": ("r", _LAZY_RELEVANCE),
        "smoothing": (None, [StrOptions({"laplace"}), None]),
    },
    "selection.lazy.selectors:AllPositive": {
        **_BINARIZE,
        **_LAZY_CHECK,
    },
    "selection.lazy.selectors:AllNegative": {
        **_BINARIZE,
        **_LAZY_CHECK,
    },
    "selection.hierarchical.greedy_top_down:GreedyTopDownRPV": {
        **_BINARIZE,
        **_CHECK_IMPLICATION,
        "measure": ("gain_ratio", [StrOptions({"gain_ratio", "ig"})]),
    },
    "selection.hierarchical.tsel:TSELRPV": {
        **_BINARIZE,
        **_CHECK_IMPLICATION,
        "measure": ("lift", [StrOptions({"ig", "lift"})]),
    },
    "selection.flat.cfs:CFS": {
        **_BINARIZE,
        "locally_predictive": (True, ["boolean"]),
        "search_termination": (5, [Interval(Integral, 1, None, closed="left")]),
    },
    "selection.flat.relieff:ReliefF": {
        **_BINARIZE,
        "block_size": (2048, [Interval(Integral, 1, None, closed="left")]),
        "n_neighbors": (10, [Interval(Integral, 1, None, closed="left")]),
        "threshold": (0.01, [Interval(Real, None, None, closed="neither")]),
    },
    "selection.flat.mrmr:MRMR": {
        **_BINARIZE,
        "k": (50, [Interval(Integral, 1, None, closed="left")]),
    },
    "selection.flat.fisher:FisherScore": {
        **_BINARIZE,
        "k": (50, [Interval(Integral, 1, None, closed="left")]),
    },
    "selection.class_hierarchy.ga_tree.selector:GATreeSelector": {
        "alpha_b": (0.05, [Interval(Real, 0, None, closed="left")]),
        "alpha_l": (0.05, [Interval(Real, 0, None, closed="left")]),
        "alpha_t": (0.05, [Interval(Real, 0, None, closed="left")]),
        "base_estimator": (None, [HasMethods(["fit", "predict"]), None]),
        **_BINARIZE,
        "n_generations": (70, [Interval(Integral, 0, None, closed="left")]),
        "n_replace": (50, [Interval(Integral, 1, None, closed="left")]),
        "population_size": (500, [Interval(Integral, 1, None, closed="left")]),
        "random_state": (0, ["random_state"]),
        "scale_small": (True, ["boolean"]),
        "scoring": ("count-relief", [StrOptions({"count-relief", "cv", "fisher", "fisher-scaled", "relief",
                                                  "validation"})]),
    },
    "selection.adhoc.selector:ADHOC": {
        **_BINARIZE,
        "ccp_alpha": (0.005, [Interval(Real, 0, None, closed="left")]),
        "cluster_threshold": (0.5, [Interval(Real, 0, 1, closed="both")]),
        "crossover_rate": (0.9, [Interval(Real, 0, 1, closed="both")]),
        "cv": (5, [Interval(Integral, 2, None, closed="left")]),
        "exhaustive_limit": (256, [Interval(Integral, 0, None, closed="left")]),
        "ga_level": ("leaf", [StrOptions({"leaf", "top"})]),
        "max_order": (4, [Interval(Integral, 1, None, closed="left")]),
        "min_cluster_size": (4, [Interval(Integral, 1, None, closed="left")]),
        "min_order": (2, [Interval(Integral, 1, None, closed="left")]),
        "min_profile": (4, [Interval(Integral, 1, None, closed="left")]),
        "min_samples_leaf": (2, [Interval(Integral, 1, None, closed="left")]),
        "missing": ("raise", [StrOptions({"impute", "raise"})]),
        "mutation_rate": (None, [Interval(Real, 0, 1, closed="both"), None]),
        "n_bins": (3, [Interval(Integral, 2, None, closed="left")]),
        "n_generations": (30, [Interval(Integral, 1, None, closed="left")]),
        "nonlinear": (True, ["boolean"]),
        "numeric_test": ("spearman", [StrOptions({"pearson", "spearman"})]),
        "patience": (8, [Interval(Integral, 1, None, closed="left")]),
        "population_size": (30, [Interval(Integral, 2, None, closed="left")]),
        "random_state": (0, ["random_state"]),
        "split_ratio": (0.75, [Interval(Real, 0, None, closed="neither")]),
        "stop_similarity": (0.9, [Interval(Real, 0, 1, closed="both")]),
        "symbolic": ("auto", [StrOptions({"auto"}), list, tuple, None]),
        "tournament_size": (3, [Interval(Integral, 1, None, closed="left")]),
        "unrelated_threshold": (0.3, [Interval(Real, 0, 1, closed="both")]),
    },
    "sklearn.naive_bayes:BernoulliNB": {
        "alpha": (1.0, [Interval(Real, 0, None, closed="left"), "array-like"]),
        "binarize": (0.0, [None, Interval(Real, 0, None, closed="left")]),
        "class_prior": (None, ["array-like", None]),
        "fit_prior": (True, ["boolean"]),
        "force_alpha": (True, ["boolean"]),
    },
    "sklearn.linear_model:LogisticRegression": {
        "C": (1.0, [Interval(Real, 0, None, closed="right")]),
        "class_weight": (None, [dict, StrOptions({"balanced"}), None]),
        "dual": (False, ["boolean"]),
        "fit_intercept": (True, ["boolean"]),
        "intercept_scaling": (1, [Interval(Real, 0, None, closed="neither")]),
        "l1_ratio": (0.0, [Interval(Real, 0, 1, closed="both"), None]),
        "max_iter": (100, [Interval(Integral, 0, None, closed="left")]),
        "n_jobs": (None, [None, Integral]),
        "penalty": ("deprecated", [StrOptions({"elasticnet", "l1", "l2"}), None, Hidden(StrOptions({"deprecated"}))]),
        "random_state": (None, ["random_state"]),
        "solver": ("lbfgs", [StrOptions({"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga"})]),
        "tol": (0.0001, [Interval(Real, 0, None, closed="left")]),
        "verbose": (0, ["verbose"]),
        "warm_start": (False, ["boolean"]),
    },
    "sklearn.neighbors:KNeighborsClassifier": {
        "algorithm": ("auto", [StrOptions({"auto", "ball_tree", "brute", "kd_tree"})]),
        "leaf_size": (30, [Interval(Integral, 1, None, closed="left")]),
        "metric": ("minkowski", [StrOptions(_KNN_METRICS), callable,
                                 InstancesOf("sklearn.metrics._dist_metrics:DistanceMetric")]),
        "metric_params": (None, [dict, None]),
        "n_jobs": (None, [Integral, None]),
        "n_neighbors": (5, [Interval(Integral, 1, None, closed="left"), None]),
        "p": (2, [Interval(Real, 0, None, closed="right"), None]),
        "weights": ("uniform", [StrOptions({"distance", "uniform"}), callable, None]),
    },
    "sklearn.svm:SVC": {
        "C": (1.0, [Interval(Real, 0.0, None, closed="right")]),
        "break_ties": (False, ["boolean"]),
        "cache_size": (200, [Interval(Real, 0, None, closed="neither")]),
        "class_weight": (None, [StrOptions({"balanced"}), dict, None]),
        "coef0": (0.0, [Interval(Real, None, None, closed="neither")]),
        "decision_function_shape": ("ovr", [StrOptions({"ovo", "ovr"})]),
        "degree": (3, [Interval(Integral, 0, None, closed="left")]),
        "gamma": ("scale", [StrOptions({"auto", "scale"}), Interval(Real, 0.0, None, closed="left")]),
        "kernel": ("rbf", [StrOptions({"linear", "poly", "precomputed", "rbf", "sigmoid"}), callable]),
        "max_iter": (-1, [Interval(Integral, -1, None, closed="left")]),
        "probability": ("deprecated", ["boolean", Hidden(StrOptions({"deprecated"}))]),
        "random_state": (None, ["random_state"]),
        "shrinking": (True, ["boolean"]),
        "tol": (0.001, [Interval(Real, 0.0, None, closed="neither")]),
        "verbose": (False, ["verbose"]),
    },
    "selection.linear:TfidfLogisticRegression": {
        "C": (1.0, [Interval(Real, 0, None, closed="neither")]),
        "max_iter": (5000, [Interval(Integral, 1, None, closed="left")]),
    },
    "selection.lazy.classifiers:LazyNaiveBayes": {
        "alpha": (1.0, [Interval(Real, 0, None, closed="neither")]),
        **_BINARIZE,
        "prior": ("laplace", [StrOptions({"empirical", "laplace"})]),
    },
    "selection.lazy.classifiers:LazyKNN": {
        **_BINARIZE,
        "block_size": (1024, [Interval(Integral, 1, None, closed="left")]),
        "n_neighbors": (1, [Interval(Integral, 1, None, closed="left")]),
        "ties": ("include", [StrOptions({"first", "include"})]),
    },
    "selection.class_hierarchy.tree:default_node_classifier": {
        "C": (1.0, [Interval(Real, 0.0, None, closed="neither")]),
        "class_weight": (None, [None, dict, StrOptions({"balanced"})]),
        "dual": ("auto", ["boolean", StrOptions({"auto"})]),
        "fit_intercept": (True, ["boolean"]),
        "intercept_scaling": (1, [Interval(Real, 0, None, closed="neither")]),
        "loss": ("squared_hinge", [StrOptions({"hinge", "squared_hinge"})]),
        "max_iter": (5000, [Interval(Integral, 0, None, closed="left")]),
        "multi_class": ("ovr", [StrOptions({"crammer_singer", "ovr"})]),
        "penalty": ("l2", [StrOptions({"l1", "l2"})]),
        "random_state": (None, ["random_state"]),
        "tol": (0.0001, [Interval(Real, 0.0, None, closed="neither")]),
        "verbose": (0, ["verbose"]),
    },
    "selection.adhoc.search:c45_tree": {
        "ccp_alpha": (0.005, [Interval(Real, 0.0, None, closed="left")]),
        "class_weight": (None, [dict, list, StrOptions({"balanced"}), None]),
        "criterion": ("entropy", [StrOptions({"entropy", "gini", "log_loss"}),
                                  Hidden(InstancesOf("sklearn.tree._criterion:Criterion"))]),
        "max_depth": (None, [Interval(Integral, 1, None, closed="left"), None]),
        "max_features": (None, [Interval(Integral, 1, None, closed="left"),
                                Interval(RealNotInt, 0.0, 1.0, closed="right"), StrOptions({"log2", "sqrt"}), None]),
        "max_leaf_nodes": (None, [Interval(Integral, 2, None, closed="left"), None]),
        "min_impurity_decrease": (0.0, [Interval(Real, 0.0, None, closed="left")]),
        "min_samples_leaf": (2, [Interval(Integral, 1, None, closed="left"),
                                 Interval(RealNotInt, 0.0, 1.0, closed="neither")]),
        "min_samples_split": (2, [Interval(Integral, 2, None, closed="left"),
                                  Interval(RealNotInt, 0.0, 1.0, closed="right")]),
        "min_weight_fraction_leaf": (0.0, [Interval(Real, 0.0, 0.5, closed="both")]),
        "monotonic_cst": (None, ["array-like", None]),
        "random_state": (0, ["random_state"]),
        "splitter": ("best", [StrOptions({"best", "random"})]),
    },
}
