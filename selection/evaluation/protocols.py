"""Named evaluation protocols: how a grid evaluates one dataset and what its report shows.

A protocol bundles an evaluation function and the defaults of a paper's experiment:

- ``basic``: stratified 10-fold CV, selectors at their default parameters, every measure.
- ``shsel2014`` (Ristoski & Paulheim 2014, section 5): stratified 10-fold CV with selection
  inside each fold; classifiers NB, k-NN (k=3) and SVM with a polynomial kernel; threshold
  methods swept over 0, 0.01, ..., 1. The threshold is chosen by nested CV on the training part
  (``threshold_choice="nested"``, the honest default) or, like the paper, by the best mean
  accuracy over the test folds (``threshold_choice="best-on-test"``, optimistic: labelled so in
  every output); option ``threshold=<number>`` fixes the threshold instead. Reports accuracy,
  feature space compression (Eq. 4) and their harmonic mean.
- ``rpv2020`` (da Silva, Plastino & Freitas 2020, section 5.2): 10-fold CV; lazy Naive Bayes
  and 1-NN; GM, AUROC and AUCPR; average ranks and wins; Friedman + Holm against a control at
  alpha 0.05 (control ``rpv`` when it is in the grid; one-sided p-values "the control is
  better", which is what the paper's Table A.1 reports); % of features selected per instance.
  Threshold methods run at their default threshold (SHSEL: 0.99, as the paper). The positive
  class is label 1 when the labels are 0/1 (pro-longevity in the GO datasets, as in the paper),
  ``true``/``positive``/``yes`` for such pairs, otherwise the minority class (see
  :func:`rpv_pos_label`). With more than two classes (Cities) GM, AUROC and AUCPR are WEKA's
  class-frequency-weighted averages (option ``multiclass_average``). Eager selectors are scored
  with the same lazy NB / 1-NN implementation as the lazy ones (their mask repeated for every
  test instance, through :class:`~selection.lazy.estimator.LazySelectionClassifier`), so the
  classifier is identical across all methods (option ``lazy_classifiers_for_eager=False``
  turns that off).
- ``split``: a dataset's fixed train/test split (``nodeclass/aifb``, ``nodeclass/mutag``: the node-classification
  benchmarks): the features generated inside the fit (a ``KGFeatures`` Pipeline), every choice (the generation
  grid, e.g. ``min_support``; the selector's threshold; the classifier's declared tuning, ``logreg``'s ``C``)
  tuned by a stratified ``n_splits``-fold CV on the training part, the test part scored once, its accuracy
  with a Wilson confidence interval, the final model's selected features reported
  (:mod:`selection.evaluation.split`). It evaluates a dataset's instances and graph
  (:func:`kg.datasets.load_instances`), not a table (``data="instances"``), in one outer unit
  (``outer_folds=1``).
- ``hifsrr2017`` (Zhao et al. 2017, section 3.3): features selected per internal node of a
  class tree (:mod:`selection.class_hierarchy.evaluation`); its selectors are that module's
  methods by name (``hifsrr``, ``fsnm``, ``fisher``, ...), its classifier the per-node one.

Every protocol takes selectors and classifiers as names or estimators (see
:mod:`selection.evaluation.specs`; ``hifsrr2017``'s selectors are names only).

Other engineers add protocols with :func:`register_protocol`. A protocol declares its options
(``kgfs evaluate --option KEY=VALUE``) as a :class:`ProtocolOptions` class, the way estimators
declare their parameters (``_parameter_constraints``, the numpydoc ``Parameters`` section, the
``__init__`` defaults), so :meth:`Protocol.check_options` rejects an unknown name or a bad value
before any work and ``kgfs methods PROTOCOL`` lists them.

Examples
--------
>>> get_protocol("shsel2014").classifiers
('nb', 'knn', 'svm')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from kg.errors import KgfsError, did_you_mean
from kg.sklearn_compat import Interval, StrOptions
from selection.class_hierarchy.evaluation import ALIASES, METHODS, evaluate_class_hierarchy
from selection.class_hierarchy.tree import ClassHierarchy, as_class_hierarchy
from selection.evaluation.cv import COLUMNS, CVOptions, choose_best_on_test, evaluate_table
from selection.evaluation.specs import method_specs, protocol_method_spec, spec_label
from selection.params import Parameter, check_values, declared_parameters

__all__ = ["Protocol", "ProtocolOptions", "register_protocol", "get_protocol", "available_protocols",
           "SHSEL_THRESHOLDS", "SplitOptions", "hifsrr2017", "rpv_pos_label"]

#: The SHSEL paper's sweep: 0, 0.01, ..., 1.
SHSEL_THRESHOLDS = tuple(np.round(np.arange(0, 101) / 100.0, 2).tolist())


@dataclass(frozen=True)
class Protocol:
    """A named evaluation protocol.

    Parameters
    ----------
    name : str
    evaluate : callable
        ``evaluate(table, selectors, classifiers, *, dataset, n_splits, random_state, folds,
        options) -> pandas.DataFrame`` with the columns of
        :data:`selection.evaluation.cv.COLUMNS` (one row per selector x classifier x fold; a
        threshold sweep may return one row per threshold, see ``postprocess``). Selectors and
        classifiers are names, estimators or :class:`~selection.evaluation.specs.MethodSpec` s
        (what :func:`~selection.evaluation.grid.run_grid` passes: resolved once).
    classifiers : tuple of str
        Default classifiers.
    metrics : tuple of str
        Columns shown in the report, in order.
    rank_metrics : tuple of str
        Columns ranked and tested (Friedman + Holm).
    n_splits : int
    control : str or None
        Default control method of the Holm test when it is among the selectors.
    postprocess : callable or None
        ``postprocess(rows, options) -> rows`` applied to all rows of a dataset after every fold
        is done (e.g. the best-on-test threshold choice, which needs all folds).
    description : str
    options : dict
        Protocol defaults the grid reads (e.g. ``alternative`` of the Holm test).
    methods : tuple of str or None
        Selector names the protocol resolves itself (None: the selector registry).
    option_class : type or None
        The :class:`ProtocolOptions` subclass declaring the options (None: no options).
    paper_methods : tuple of str
        The methods the protocol's paper compares (``kgfs methods NAME`` names the protocol).
    data : {"table", "instances"}
        What the protocol evaluates: a :class:`~kg.table.FeatureTable` (the features already generated), or a
        dataset's instances with the knowledge source of their features (:class:`kg.instances.EntityDataset`,
        loaded by :func:`kg.datasets.load_instances`), whose features it generates inside each fit.
    outer_folds : int or None
        Outer units of work per dataset (cells per selector x classifier); None: ``n_splits`` (a CV's folds).
        The split protocol has one (the fixed split) and its ``n_splits`` are the inner folds.

    Examples
    --------
    >>> p = Protocol("holdout", evaluate_table, classifiers=("nb",), n_splits=5)
    >>> p.n_splits, p.rank_metrics
    (5, ('accuracy',))
    >>> get_protocol("shsel2014").check_options({"threshold_choice": "best-on-test"})
    {'threshold_choice': 'best-on-test'}
    """

    name: str
    evaluate: Callable
    classifiers: tuple = ("nb",)
    metrics: tuple = ("accuracy", "gm", "auroc", "aucpr", "compression", "harmonic_mean")
    rank_metrics: tuple = ("accuracy",)
    n_splits: int = 10
    control: str | None = None
    postprocess: Callable | None = None
    description: str = ""
    options: dict = field(default_factory=dict)
    methods: tuple | None = None  # selector names the protocol itself resolves (None: the selector registry)
    option_class: type | None = None
    paper_methods: tuple = ()
    data: str = "table"
    outer_folds: int | None = None

    def n_outer(self, n_splits: int) -> int:
        """Cells per dataset x selector x classifier: :attr:`outer_folds`, else ``n_splits``.

        Examples
        --------
        >>> get_protocol("basic").n_outer(10), get_protocol("split").n_outer(5)
        (10, 1)
        """
        return int(self.outer_folds or n_splits)

    def parameters(self) -> list[Parameter]:
        """The declared options (see :class:`ProtocolOptions`).

        Returns
        -------
        list of Parameter

        Examples
        --------
        >>> [p.name for p in get_protocol("basic").parameters()]
        ['pos_label', 'threshold']
        """
        return [] if self.option_class is None else declared_parameters(self.option_class())

    def check_options(self, options: Mapping | None) -> dict:
        """``options`` checked against the declared ones (names, types, ranges, choices).

        Parameters
        ----------
        options : mapping or None

        Returns
        -------
        dict

        Raises
        ------
        KgfsError
            One line naming the option and listing the valid ones.

        Examples
        --------
        >>> get_protocol("basic").check_options({"foo": 1})
        Traceback (most recent call last):
        ...
        kg.errors.KgfsError: protocol basic has no option 'foo'; options: pos_label (...), threshold ...
        """
        return check_values(self.parameters(), dict(options or {}), owner=f"protocol {self.name}", noun="option")

    def defaults(self, options: Mapping | None = None) -> dict:
        """The declared options' defaults updated with ``options``.

        Parameters
        ----------
        options : mapping, optional

        Returns
        -------
        dict

        Examples
        --------
        >>> get_protocol("rpv2020").defaults({"threshold": 0.5})["multiclass_average"]
        'weighted'
        """
        return {**{p.name: p.default for p in self.parameters()}, **dict(options or {})}


class ProtocolOptions(BaseEstimator):
    """Base of the classes that declare a protocol's options (``get_params`` gives their defaults).

    Subclasses list the options as ``__init__`` keyword arguments stored as they are, declare
    ``_parameter_constraints`` and describe each option in a numpydoc ``Parameters`` section.

    Parameters
    ----------
    **options
        None here; each subclass declares its own.

    Examples
    --------
    >>> BasicOptions().get_params()
    {'pos_label': None, 'threshold': None}
    """

    _parameter_constraints: dict = {}


class BasicOptions(ProtocolOptions):
    """Options of the ``basic`` protocol.

    Parameters
    ----------
    threshold : float or None
        Threshold of the threshold methods (SHSEL, SIG, SC) instead of each method's default.
    pos_label : str, int or None
        The positive class of AUROC, AUCPR and GM (default: the minority class).
    """

    _parameter_constraints = {"threshold": [Interval(Real, None, None, closed="neither"), None],
                              "pos_label": [str, Integral, None]}

    def __init__(self, threshold=None, pos_label=None):
        self.threshold = threshold
        self.pos_label = pos_label


_PROTOCOLS: dict[str, Protocol] = {}


def register_protocol(name: str, fn: Callable, **kw) -> Protocol:
    """Register ``fn`` (see :class:`Protocol` ``evaluate``) under ``name``.

    Parameters
    ----------
    name : str
        The name ``plan_evaluation(protocol, ...)`` and ``kgfs evaluate --protocol`` take.
    fn : callable
        The evaluation function (see :class:`Protocol`).
    **kw
        The other fields of :class:`Protocol`.

    Returns
    -------
    Protocol

    Examples
    --------
    >>> def five_fold(table, selectors, classifiers, *, dataset, n_splits, random_state, folds, options):
    ...     return evaluate_table(table, selectors, classifiers, dataset=dataset, n_splits=n_splits,
    ...                           random_state=random_state, folds=folds)
    >>> register_protocol("example-five-fold", five_fold, n_splits=5).n_splits
    5
    >>> del _PROTOCOLS["example-five-fold"]  # leave the registry as it was
    """
    p = Protocol(name=name, evaluate=fn, **kw)
    _PROTOCOLS[name] = p
    return p


def get_protocol(name: str) -> Protocol:
    """The protocol registered as ``name`` (a :class:`KgfsError` lists the known ones).

    Parameters
    ----------
    name : str

    Returns
    -------
    Protocol

    Examples
    --------
    >>> get_protocol("rpv2020").control
    'rpv'
    """
    try:
        return _PROTOCOLS[name]
    except KeyError:
        raise KgfsError(f"unknown protocol {name!r}{did_you_mean(name, _PROTOCOLS)}; available: "
                        f"{', '.join(sorted(_PROTOCOLS))}") from None


def available_protocols() -> dict[str, Protocol]:
    """Every registered protocol, by name.

    Returns
    -------
    dict of str -> Protocol

    Examples
    --------
    >>> {"basic", "rpv2020", "shsel2014", "hifsrr2017", "split"} <= set(available_protocols())
    True
    """
    return dict(sorted(_PROTOCOLS.items()))


# ------------------------------------------------------------------ the built-in protocols
def _basic(table, selectors, classifiers, *, dataset, n_splits=10, random_state=0, folds=None, options=None):
    proto = _PROTOCOLS["basic"]
    options = proto.defaults(proto.check_options(options))
    return evaluate_table(table, selectors, classifiers, dataset=dataset, n_splits=n_splits,
                          random_state=random_state, folds=folds,
                          options=CVOptions(threshold=options["threshold"], pos_label=options["pos_label"]))


_METRICS = ("accuracy", "gm", "auroc", "aucpr", "harmonic_mean")


class Shsel2014Options(ProtocolOptions):
    """Options of the ``shsel2014`` protocol.

    Parameters
    ----------
    threshold : float or None
        A fixed threshold of the threshold methods (no sweep, no choice).
    threshold_choice : {"nested", "best-on-test"}
        How the swept threshold is chosen: nested CV on the training part (honest) or the best mean over the
        test folds (the paper's, optimistic).
    thresholds : list of float or None
        The thresholds swept (default: 0, 0.01, ..., 1, the paper's).
    threshold_metric : {"accuracy", "gm", "auroc", "aucpr", "harmonic_mean"}
        The measure the threshold choice maximises.
    inner_splits : int
        Folds of the inner CV of the nested choice.
    pos_label : str, int or None
        The positive class of AUROC, AUCPR and GM (default: the minority class).
    """

    _parameter_constraints = {"threshold": [Interval(Real, None, None, closed="neither"), None],
                              "threshold_choice": [StrOptions({"nested", "best-on-test"})],
                              "thresholds": ["array-like", None], "threshold_metric": [StrOptions(set(_METRICS))],
                              "inner_splits": [Interval(Integral, 2, None, closed="left")],
                              "pos_label": [str, Integral, None]}

    def __init__(self, threshold=None, threshold_choice="nested", thresholds=None, threshold_metric="accuracy",
                 inner_splits=5, pos_label=None):
        self.threshold = threshold
        self.threshold_choice = threshold_choice
        self.thresholds = thresholds
        self.threshold_metric = threshold_metric
        self.inner_splits = inner_splits
        self.pos_label = pos_label


def _shsel2014(table, selectors, classifiers, *, dataset, n_splits=10, random_state=0, folds=None, options=None):
    proto = _PROTOCOLS["shsel2014"]
    given = proto.check_options(options)
    options = proto.defaults(given)
    # a fixed threshold (``threshold=0.99``) turns the sweep off; otherwise nested / best-on-test
    fixed = options["threshold"]
    choice = options["threshold_choice"] if fixed is None or "threshold_choice" in given else float(fixed)
    cv = CVOptions(threshold=choice,
                   thresholds=options["thresholds"] if options["thresholds"] is not None else SHSEL_THRESHOLDS,
                   threshold_metric=options["threshold_metric"], inner_splits=int(options["inner_splits"]),
                   pos_label=options["pos_label"], keep_sweep=True)
    return evaluate_table(table, selectors, classifiers, dataset=dataset, n_splits=n_splits,
                          random_state=random_state, folds=folds, options=cv)


def _shsel_post(rows, options):
    return choose_best_on_test(rows, _PROTOCOLS["shsel2014"].defaults(options)["threshold_metric"])


_POSITIVE_PAIRS = ({"0", "1"}, {"false", "true"}, {"negative", "positive"}, {"no", "yes"}, {"neg", "pos"})


def rpv_pos_label(y):
    """The RPV protocol's positive class for two labels that name it, else None.

    For 0/1, false/true, negative/positive, no/yes, neg/pos: the second (``1``: pro-longevity in
    the GO data; ``true`` in NY Daily, whose 57% positive instances match the paper's Table 1).
    Otherwise None, which means the minority class.

    Parameters
    ----------
    y : array-like
        Class labels.

    Returns
    -------
    label or None

    Examples
    --------
    >>> rpv_pos_label([0, 1, 1]), rpv_pos_label(["No", "Yes"]), rpv_pos_label(["a", "b"])
    (1, 'Yes', None)
    """
    vals = np.unique(np.asarray(y)).tolist()
    low = {str(v).lower() for v in vals}
    for pair in _POSITIVE_PAIRS:
        if low == pair:
            pos = sorted(pair)[1] if pair != {"neg", "pos"} else "pos"
            pos = {"false": "true", "negative": "positive", "no": "yes"}.get(sorted(pair)[0], pos)
            return next(v for v in vals if str(v).lower() == pos)
    return None


class Rpv2020Options(ProtocolOptions):
    """Options of the ``rpv2020`` protocol.

    Parameters
    ----------
    threshold : float or None
        Threshold of the threshold methods instead of each method's default (SHSEL: 0.99).
    pos_label : str, int or None
        The positive class of AUROC, AUCPR and GM (default: see :func:`rpv_pos_label`).
    lazy_classifiers_for_eager : bool
        Score eager selectors with the lazy NB / 1-NN too, so every method meets the same classifier.
    multiclass_average : {"weighted", "macro"}
        Averaging of GM, AUROC and AUCPR over the classes when there are more than two.
    """

    _parameter_constraints = {"threshold": [Interval(Real, None, None, closed="neither"), None],
                              "pos_label": [str, Integral, None], "lazy_classifiers_for_eager": ["boolean"],
                              "multiclass_average": [StrOptions({"weighted", "macro"})]}

    def __init__(self, threshold=None, pos_label=None, lazy_classifiers_for_eager=True, multiclass_average="weighted"):
        self.threshold = threshold
        self.pos_label = pos_label
        self.lazy_classifiers_for_eager = lazy_classifiers_for_eager
        self.multiclass_average = multiclass_average


def _rpv2020(table, selectors, classifiers, *, dataset, n_splits=10, random_state=0, folds=None, options=None):
    proto = _PROTOCOLS["rpv2020"]
    given = proto.check_options(options)
    options = proto.defaults(given)
    pos = given["pos_label"] if "pos_label" in given else rpv_pos_label(table.y)
    cv = CVOptions(threshold=options["threshold"], pos_label=pos,
                   lazy_classifiers_for_eager=bool(options["lazy_classifiers_for_eager"]),
                   multiclass_average=options["multiclass_average"])
    return evaluate_table(table, selectors, classifiers, dataset=dataset, n_splits=n_splits,
                          random_state=random_state, folds=folds, options=cv)


# ------------------------------------------------------------------ hifsrr2017 (per class-tree node)
class Hifsrr2017Options(ProtocolOptions):
    """Options of the ``hifsrr2017`` protocol.

    Parameters
    ----------
    class_tree : str, list of (child, parent) or None
        The class tree: a ``child,parent`` edges file or pairs (default: the table's, else built from the data).
    n_groups : int, "sqrt" or None
        Groups of classes when the tree is built from the data (see :meth:`ClassHierarchy.from_data`).
    n_features : int, str, list of int or None
        Features per node, e.g. ``8`` or ``"32,16,8"`` (default: 50%, 40%, ..., 10% of the features).
    scale : bool
        Standardise the features inside each fold before ranking and classification.
    """

    _parameter_constraints = {"class_tree": [str, list, None],
                              "n_groups": [Interval(Integral, 1, None, closed="left"), StrOptions({"sqrt"}), None],
                              "n_features": [Interval(Integral, 1, None, closed="left"), str, list, None],
                              "scale": ["boolean"]}

    def __init__(self, class_tree=None, n_groups="sqrt", n_features=None, scale=True):
        self.class_tree = class_tree
        self.n_groups = n_groups
        self.n_features = n_features
        self.scale = scale


def _class_tree(table, options) -> ClassHierarchy:
    spec = options.get("class_tree")
    if spec is None:
        meta = getattr(table, "meta", None) or {}
        spec = meta.get("class_tree") if isinstance(meta, Mapping) else None
    if spec is not None:
        return as_class_hierarchy(spec)
    return ClassHierarchy.from_data(table.X, np.asarray(table.y), n_groups=options.get("n_groups", "sqrt"))


def _feature_counts(ks):
    if isinstance(ks, (int, np.integer)):  # `--option n_features=8`
        return [int(ks)]
    if isinstance(ks, str):  # `--option n_features=32,16,8`
        try:
            return [int(v) for v in ks.replace(" ", "").split(",") if v]
        except ValueError:
            raise KgfsError(f"option n_features must be integers like 32,16,8, got {ks!r}") from None
    return ks


def hifsrr2017(table, selectors, classifiers, *, dataset, n_splits=10, random_state=0, folds=None, options=None):
    """Protocol ``hifsrr2017`` (:mod:`selection.class_hierarchy.evaluation`) in the rows of :data:`COLUMNS`.

    ``table`` is anything with ``X`` and ``y`` (a :class:`~kg.table.FeatureTable`). Selectors
    are methods of :data:`selection.class_hierarchy.evaluation.METHODS` by name (with
    parameters: ``("hifsrr", {"lam": 5.0})``); classifiers are names or estimators and serve as
    the per-node classifier (``"svm-linear"``: the paper's linear SVM). For each selector x
    classifier x fold there is one row per number of features ``k`` (in the ``threshold``
    column; ``n_selected = k``, ``compression = 1 - k / n_features``) and measure:
    ``threshold_choice == "node-average"`` holds the paper's average per-node accuracy,
    ``"top-down"`` the accuracy of the top-down classifier. Options: see
    :class:`Hifsrr2017Options`.
    """
    options = _PROTOCOLS["hifsrr2017"].check_options(options)
    tree = _class_tree(table, options)
    ks = _feature_counts(options.get("n_features"))
    methods = [protocol_method_spec(s) for s in (selectors if isinstance(selectors, (list, tuple)) else [selectors])]
    X, y = table.X, np.asarray(table.y)
    n = X.shape[1]
    out = []
    for clf in method_specs(classifiers, "classifier"):
        res = evaluate_class_hierarchy(
            X, y, tree, n_features=ks, methods=[(m.name, m.params) for m in methods], n_splits=n_splits,
            random_state=random_state, folds=folds, classifier=clf.build(), scale=bool(options.get("scale", True)),
        )
        res = res[res["node"].isin(["mean", "top-down"])]
        for r in res.itertuples(index=False):
            k = int(r.k)
            out.append({
                "dataset": dataset, "selector": spec_label(r.method, json.loads(r.params)), "params": r.params,
                "classifier": clf.label, "fold": int(r.fold), "n_features": n,
                "n_train": int(len(y) - r.n_test), "n_test": int(r.n_test), "n_selected": k,
                "accuracy": r.accuracy, "auroc": np.nan, "aucpr": np.nan, "gm": np.nan,
                "compression": 1.0 - k / n, "harmonic_mean": np.nan, "select_seconds": r.select_seconds,
                "classify_seconds": np.nan, "threshold": k,
                "threshold_choice": "node-average" if r.node == "mean" else "top-down",
                "kind": "class-hierarchy", "pos_label": None, "status": "ok", "error": "",
            })
    return pd.DataFrame(out, columns=COLUMNS)


def _hifsrr2017_post(rows: pd.DataFrame, options) -> pd.DataFrame:
    """For the grid's report: one column per method and ``k``, one table per measure.

    Selector labels become ``"<method> k=<k>"``; top-down rows get the classifier label
    ``"<classifier> top-down"`` (the node-average rows keep the classifier's name), so the report
    tables show the paper's measure and the top-down accuracy separately, for every k.
    """
    if rows.empty or not rows["kind"].eq("class-hierarchy").any():
        return rows
    rows = rows.copy()
    k = pd.to_numeric(rows["threshold"]).astype(int).astype(str)
    rows["selector"] = rows["selector"] + " k=" + k
    td = rows["threshold_choice"].eq("top-down")
    rows.loc[td, "classifier"] = rows.loc[td, "classifier"] + " top-down"
    return rows



# ------------------------------------------------------------------ split (a fixed train/test split)
class SplitOptions(ProtocolOptions):
    """Options of the ``split`` protocol.

    Parameters
    ----------
    generation : dict or None
        KGFeatures parameters and the values tuned on the training part, e.g. ``{"min_support": [1, 2, 3]}``
        (default: the dataset's ``evaluation.generation`` in the registry; ``{}``: its settings as they are).
    thresholds : list of float or None
        The thresholds tuned for a threshold method (default: 0, 0.1, ..., 0.9, 0.95, 0.99, 1); a fixed
        ``--param threshold=...`` is not tuned.
    confidence : float
        Level of the test accuracy's Wilson interval.
    pos_label : str, int or None
        The positive class of AUROC, AUCPR and GM (default: the minority class).
    search_jobs : int
        Workers of each grid search (1: in the cell's process, where the graph's answers are shared).
    max_kept : float or None
        A budget of features: only settings whose selector keeps at most this share of the generated features
        in every inner fold are chosen (e.g. 0.1; default: no budget).
    """

    _parameter_constraints = {"generation": [dict, None], "thresholds": ["array-like", None],
                              "confidence": [Interval(Real, 0, 1, closed="neither")],
                              "pos_label": [str, Integral, None],
                              "search_jobs": [Interval(Integral, 1, None, closed="left")],
                              "max_kept": [Interval(Real, 0, 1, closed="right"), None]}

    def __init__(self, generation=None, thresholds=None, confidence=0.95, pos_label=None, search_jobs=1,
                 max_kept=None):
        self.generation = generation
        self.thresholds = thresholds
        self.confidence = confidence
        self.pos_label = pos_label
        self.search_jobs = search_jobs
        self.max_kept = max_kept


def _split(data, selectors, classifiers, *, dataset, n_splits=5, random_state=0, folds=None, options=None):
    """Protocol ``split`` (:func:`selection.evaluation.split.evaluate_split`) as result rows; ``folds`` is
    ignored (one outer unit: the fixed split)."""
    from selection.evaluation.split import split_rows

    proto = _PROTOCOLS["split"]
    options = proto.defaults(proto.check_options(options))
    generation = options["generation"]
    if generation is not None and not all(isinstance(v, list) and v for v in generation.values()):
        raise KgfsError(f"option generation must map KGFeatures parameters to lists of values, e.g. "
                        f'{{"min_support": [1, 2, 3]}}; got {generation!r}')
    from selection.evaluation.split import SplitSettings

    settings = SplitSettings(generation=generation, thresholds=options["thresholds"], inner_splits=n_splits,
                             random_state=random_state, confidence=float(options["confidence"]),
                             pos_label=options["pos_label"], n_jobs=int(options["search_jobs"]),
                             max_kept=None if options["max_kept"] is None else float(options["max_kept"]))
    rows = split_rows(data, selectors, classifiers, settings)
    rows["dataset"] = dataset
    return rows


_SHSEL_PAPER = ("shsel-ig", "shsel-ig-prune", "shsel-c", "shsel-c-prune", "sig", "sc", "tsel-lift", "tsel-ig",
                "hill-climbing", "greedy-top-down", "complete", "nb", "knn", "svm")
_RPV_PAPER = ("rpv", "rpv-ig", "rpv-r", "hip", "mr", "all-pos", "all-neg", "cfs", "relieff", "gtd-rpv", "tsel-rpv",
              "shsel-rpv", "complete", "nb", "1nn", "lazy-nb", "lazy-1nn")


register_protocol(
    "basic", _basic, classifiers=("nb",),
    metrics=("accuracy", "gm", "auroc", "aucpr", "compression", "harmonic_mean"),
    rank_metrics=("accuracy", "gm", "auroc", "aucpr"), option_class=BasicOptions,
    description="stratified 10-fold CV, selectors at their defaults, every measure",
)
register_protocol(
    "shsel2014", _shsel2014, classifiers=("nb", "knn", "svm"),
    metrics=("accuracy", "compression", "harmonic_mean"),
    rank_metrics=("accuracy", "harmonic_mean"), control="shsel-ig-prune", postprocess=_shsel_post,
    option_class=Shsel2014Options, paper_methods=_SHSEL_PAPER,
    description="SHSEL paper (2014) s.5: stratified 10-fold CV, NB / 3-NN / SVM-poly, thresholds 0..1 "
                "step 0.01 (nested CV choice by default; best-on-test on request, optimistic), "
                "accuracy, compression, harmonic mean",
)
register_protocol(
    "rpv2020", _rpv2020, classifiers=("nb", "1nn"),
    metrics=("gm", "auroc", "aucpr", "compression"),
    rank_metrics=("aucpr", "auroc", "gm"), control="rpv", options={"alternative": "one-sided"},
    option_class=Rpv2020Options, paper_methods=_RPV_PAPER,
    description="RPV paper (2020) s.5.2: 10-fold CV, lazy NB and 1-NN, GM / AUROC / AUCPR, ranks, wins, "
                "Friedman + Holm vs a control at alpha 0.05, % features selected per instance",
)
register_protocol(
    "hifsrr2017", hifsrr2017, classifiers=("svm-linear",), metrics=("accuracy", "compression"),
    rank_metrics=("accuracy",), n_splits=10, control=None, postprocess=_hifsrr2017_post,
    option_class=Hifsrr2017Options, paper_methods=METHODS + ("svm-linear",), methods=METHODS + tuple(ALIASES),
    description="HiFSRR paper (2017) s.3.3: features selected per internal node of a class tree, "
                "10-fold CV, average accuracy of the per-node linear SVMs for each number of features "
                "per node (threshold column), plus top-down accuracy",
)
register_protocol(
    "split", _split, classifiers=("logreg", "logreg-tfidf", "nb"),
    metrics=("accuracy", "gm", "auroc", "aucpr", "compression"),
    rank_metrics=("accuracy",), n_splits=5, option_class=SplitOptions, data="instances", outer_folds=1,
    description="a dataset's fixed train/test split (the node-classification benchmarks): features generated "
                "inside the fit, generation settings, threshold and C tuned by 5-fold CV on the train part, "
                "the test part scored once, accuracy with a Wilson 95% interval, the final model's features",
)
