"""Cross-validated evaluation of selectors x classifiers on one :class:`~kg.table.FeatureTable`.

One call, :func:`evaluate_table`, runs a seeded stratified k-fold cross-validation. In every
fold the selector is fitted on the training part only, the classifier is fitted on the selected
columns of the training part and scored on the test part. The result is a tidy
``pandas.DataFrame`` with one row per selector x classifier x fold (columns: :data:`COLUMNS`).

Selectors and classifiers are registry names or estimators (a scikit-learn selector such as
``SelectKBest(chi2, k=50)``, a kgfs selector, a ``Pipeline``, a
:class:`~selection.lazy.LazySelectionClassifier`, ...), resolved once into
:class:`~selection.evaluation.specs.MethodSpec` s before any work; every fit clones the
estimator (see :mod:`selection.evaluation.specs`). How the folds are scored and thresholds
chosen is one :class:`CVOptions` object.

Choices the papers leave open (documented here, tested in ``tests/selection/evaluation/test_cv.py``):

- **Folds**: ``StratifiedKFold(n_splits, shuffle=True, random_state)``; the same seed gives the
  same folds for every selector and classifier, so methods are compared on identical splits.
- **Positive class** (AUROC, AUCPR; sensitivity/specificity in GM): ``pos_label`` if given,
  else the minority class of the whole table (see :mod:`selection.evaluation.metrics`). With more than two
  classes none is positive (the measures average over the classes) and the ``pos_label`` column is empty.
- **Eager selectors** (kind ``eager``/``flat``): the selector's ``get_support()`` mask chooses
  the columns (a ``Pipeline`` of selectors: the composed mask). A mask that selects nothing
  leaves the classifier nothing to learn from; the fold is then scored with a prior-only
  classifier (``DummyClassifier(strategy="prior")``: predicts the training majority class),
  which is what "no features" means, rather than failing
  (:func:`selection.evaluation.classify.eager_classify`).
- **Lazy selectors** (kind ``lazy``) are scored by
  :class:`~selection.lazy.estimator.LazySelectionClassifier`: the selector fitted on the
  training part gives each test instance its mask (``select_for``, a block of rows at a time)
  and the classifier's per-instance form (:meth:`MethodSpec.build_lazy`: ``nb`` and ``1nn`` are
  the lazy NB and 1-NN) scores it on that mask; with ``lazy_classifiers_for_eager=True`` (the
  RPV protocol) eager masks go through it too, repeated for every instance. Predictions are the
  most probable class of ``predict_proba``. ``n_selected`` is the mean number of features
  selected per test instance, so ``compression`` is one minus the mean fraction selected (the
  RPV paper's Table 10 shows ``100 * (1 - compression)``).
- **Sharing within a fold** (one ``_Fold`` object, dropped with the fold): each lazy classifier
  is fitted once per fold and handed to the estimators frozen, a lazy selector's masks are
  computed once for all classifiers (``SharedSelection``), and a classifier's output on an
  eager mask is kept per distinct mask (a sweep's plateaus, SIG at t=0 and CompleteFS, ...).
  What is shared is keyed by the classifier spec's label, which includes its parameters.
- **Scores for AUROC/AUCPR** come from ``predict_proba``; a classifier without it (SVM with
  ``probability=False``) is scored by ``decision_function``.
- **Threshold methods** (the estimator's class declares ``threshold_grid``: SHSEL, SIG/SC):
  ``threshold=None`` uses the selector's own threshold; a number fixes it; ``"best-on-test"``
  sweeps the grid and reports, per selector and classifier, the threshold with the best mean
  ``threshold_metric`` over the test folds (the SHSEL paper's choice, optimistic because the
  test folds choose it); ``"nested"`` (the honest one) chooses the threshold per outer fold by
  an inner stratified ``inner_splits``-fold CV on the training part and then scores it on the
  outer test part. Ties between thresholds go to the higher compression, then to the lower
  threshold. A sweep fits the selector once per fold when it offers
  ``supports_for_thresholds(thresholds)`` (a boolean ``n_thresholds x n_features`` array
  computed from scores fitted once); otherwise it refits with ``set_params(threshold=t)``.
  Either way the classifier is fitted once per *distinct* mask, so plateaus of the sweep cost
  nothing. ``select_seconds`` of a swept method is the time of the whole sweep (including the
  inner CV for ``nested``): what the user pays.
- **Failures**: a selector or classifier that raises marks its cells ``status="failed"`` with
  the error text, and the evaluation goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedKFold

from kg.errors import KgfsError, ParameterError, param
from selection.base import reads_counts
from selection.evaluation.classify import eager_classify
from selection.evaluation.metrics import compression, fold_metrics, positive_label
from selection.evaluation.specs import MethodSpec, method_specs, params_json
from selection.lazy.estimator import FixedSupport, LazySelectionClassifier, SharedSelection, default_block_size

__all__ = ["COLUMNS", "DEGENERATE", "CVOptions", "evaluate_table", "choose_best_on_test", "check_folds",
           "degenerate_selection", "support_of"]

log = logging.getLogger(__name__)

COLUMNS = [
    "dataset", "selector", "params", "classifier", "fold", "n_features", "n_train", "n_test",
    "n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
    "select_seconds", "classify_seconds", "threshold", "threshold_choice", "kind", "pos_label",
    "degenerate", "status", "error",
]

#: Why a fold's selection cannot help a classifier (the ``degenerate`` column; several are joined by ``"; "``).
DEGENERATE = {"empty": "no feature kept", "only roots": "only roots of the hierarchy kept",
              "constant": "every kept feature is constant over the training instances"}

THRESHOLD_CHOICES = ("best-on-test", "nested")


@dataclass(frozen=True)
class CVOptions:
    """How :func:`evaluate_table` scores the folds and chooses thresholds (defaults: the ``basic`` protocol's).

    Parameters
    ----------
    threshold : None, float, "best-on-test" or "nested"
        Threshold handling of the methods whose class declares a ``threshold_grid`` (see the
        module docstring): their own threshold, a fixed one, or a swept choice.
    thresholds : sequence of float, optional
        The sweep grid (default: the class's ``threshold_grid``).
    threshold_metric : str
        Column maximised when choosing a threshold (default ``accuracy``, as the SHSEL paper).
    inner_splits : int
        Inner folds of ``threshold="nested"`` (reduced to the smallest class count of the
        training part if needed).
    keep_sweep : bool
        With ``threshold="best-on-test"``, return every threshold's rows (before the choice);
        :func:`choose_best_on_test` makes the choice later (the grid does this across folds).
    pos_label : optional
        Positive class for AUROC/AUCPR (default: the minority class of ``table.y``).
    lazy_classifiers_for_eager : bool
        Score eager selectors with the classifiers' per-instance forms too (through
        :class:`~selection.lazy.estimator.LazySelectionClassifier`: the eager mask repeated for
        every test instance), so eager and lazy methods share one classifier implementation
        (the RPV protocol).
    multiclass_average : {"macro", "weighted"}
        How GM, AUROC and AUCPR average over classes when there are more than two (see
        :mod:`selection.evaluation.metrics`; ``weighted`` is WEKA's weighted average).

    Examples
    --------
    >>> CVOptions(threshold="nested").inner_splits
    5
    >>> CVOptions(threshold="magic")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: threshold must be a number, None, or one of ('best-on-test', 'nested'), got 'magic'
    """

    threshold: object = None
    thresholds: Sequence[float] | None = None
    threshold_metric: str = "accuracy"
    inner_splits: int = 5
    keep_sweep: bool = False
    pos_label: object = None
    lazy_classifiers_for_eager: bool = False
    multiclass_average: str = "macro"

    def __post_init__(self):
        t = self.threshold
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))) and t not in THRESHOLD_CHOICES:
            raise KgfsError(f"threshold must be a number, None, or one of {THRESHOLD_CHOICES}, got {t!r}")
        if self.multiclass_average not in ("macro", "weighted"):
            raise KgfsError(f"multiclass_average must be 'macro' or 'weighted', got {self.multiclass_average!r}")

    @property
    def fixed_threshold(self) -> float | None:
        """The threshold every threshold method runs at, when a number was given."""
        return float(self.threshold) if isinstance(self.threshold, (int, float)) else None

    @property
    def sweeps(self) -> bool:
        """Whether threshold methods are swept (``best-on-test`` or ``nested``)."""
        return isinstance(self.threshold, str)


def check_folds(y, n_splits: int, dataset: str = "") -> None:
    """Raise a :class:`KgfsError` unless every class has at least ``n_splits`` members.

    Parameters
    ----------
    y : array-like or None
        Class labels of the table.
    n_splits : int
        Folds of the stratified cross-validation.
    dataset : str
        Name used in the error message.

    Returns
    -------
    None

    Examples
    --------
    >>> check_folds([0, 0, 1, 1], 2)
    >>> check_folds([0, 0, 1], 2, "toy")
    Traceback (most recent call last):
    ...
    kg.errors.KgfsError: dataset 'toy': class 1 has 1 member(s), fewer than the 2 folds of the ...; drop the class
    """
    if y is None:
        raise KgfsError(f"dataset {dataset!r} has no class labels; evaluation needs y")
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    if len(labels) < 2:
        raise KgfsError(f"dataset {dataset!r} has a single class ({labels.tolist()[0]!r}); evaluation needs two or "
                        "more")
    if n_splits < 2:
        raise ParameterError(f"{param('n_splits')} must be at least 2, got {n_splits}")
    small = [(lab, int(c)) for lab, c in zip(labels.tolist(), counts) if c < n_splits]
    if small:
        desc = ", ".join(f"{lab!r} has {c}" for lab, c in small)
        least = min(c for _, c in small)
        raise KgfsError(
            f"dataset {dataset!r}: class {desc} member(s), fewer than the {n_splits} folds of the "
            "stratified cross-validation; "
            + (f"use {param('n_splits', least)} or fewer" if least >= 2 else "drop the class")
        )


# ------------------------------------------------------------------ selections
def support_of(selector, n_features: int) -> np.ndarray:
    """The boolean mask of a fitted eager selector; a ``Pipeline`` of selectors composes its steps' masks.

    Parameters
    ----------
    selector : fitted estimator
        ``get_support()``, or a ``Pipeline`` whose steps all have it.
    n_features : int
        Columns of the data it was fitted on.

    Returns
    -------
    ndarray of bool, shape (n_features,)

    Examples
    --------
    >>> from sklearn.feature_selection import SelectKBest, VarianceThreshold, chi2
    >>> from sklearn.pipeline import make_pipeline
    >>> X, y = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 0, 0, 1]]), [1, 0, 1]
    >>> support_of(make_pipeline(VarianceThreshold(), SelectKBest(chi2, k=2)).fit(X, y), 4).tolist()
    [True, False, False, True]
    """
    steps = getattr(selector, "steps", None)
    if steps is None:
        return np.asarray(selector.get_support(), dtype=bool)
    mask = np.ones(n_features, dtype=bool)
    for _, step in steps:
        if step is None or step == "passthrough":
            continue
        inner = np.flatnonzero(mask)
        mask[:] = False
        mask[inner[support_of(step, inner.size)]] = True
    return mask


def degenerate_selection(mask, X_train, is_root=None) -> str:
    """Why a selection fitted on ``X_train`` cannot help a classifier: ``""`` when it can.

    A selection is *degenerate* when it keeps nothing (``empty``), only roots of the hierarchy
    (``only roots``: every instance of a closed table has a root, or the root says nothing below
    the top), or only features with the same value in every training instance (``constant``: no
    classifier can tell the classes apart with them). A classifier given such a selection can
    do no better than the majority class, whatever its accuracy looks like.

    Parameters
    ----------
    mask : array of bool, shape (n_features,)
        The kept features.
    X_train : sparse matrix (n_train x n_features)
        The training part the selector was fitted on.
    is_root : array of bool, shape (n_features,), optional
        Which features are tops of the hierarchy: roots with children (a childless root is a flat
        feature beside the hierarchy, and keeping it says something).

    Returns
    -------
    str
        The reasons of :data:`DEGENERATE` that apply, joined by ``"; "``.

    Examples
    --------
    >>> X = sp.csr_matrix([[1, 1, 0], [1, 0, 1], [1, 0, 0]])
    >>> roots = np.array([True, False, False])
    >>> degenerate_selection(np.array([True, False, False]), X, roots)
    'only roots; constant'
    >>> degenerate_selection(np.array([True, True, False]), X, roots), degenerate_selection(np.zeros(3, bool), X)
    ('', 'empty')
    """
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return "empty"
    out = []
    if is_root is not None and np.asarray(is_root, dtype=bool)[mask].all():
        out.append("only roots")
    support = np.asarray(sp.csr_matrix(X_train)[:, np.flatnonzero(mask)].sum(axis=0)).ravel()
    if ((support == 0) | (support == X_train.shape[0])).all():
        out.append("constant")
    return "; ".join(out)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


# ------------------------------------------------------------------ one run, one fold
@dataclass(frozen=True)
class _Run:
    """What every fold of one :func:`evaluate_table` call shares."""

    dataset: str
    hierarchy: object
    classifiers: list  # MethodSpec
    options: CVOptions
    pos: object
    labels: np.ndarray
    n_features: int
    random_state: int
    is_root: np.ndarray | None = None


# the columns of a row that the measures fill in
_BLANK_ROW = {**dict.fromkeys(["n_selected", "accuracy", "auroc", "aucpr", "gm", "compression", "harmonic_mean",
                               "select_seconds", "classify_seconds", "threshold"], np.nan),
              "threshold_choice": "", "degenerate": "", "status": "ok", "error": ""}


class _Fold:
    """One train/test split, its row and score helpers, and what its selectors share.

    Every selector of the fold has the same training part: each lazy classifier is fitted once
    (:meth:`lazy_classifier`) and a classifier's output on an eager mask is kept per distinct
    mask (:meth:`evaluate_mask`). Nothing outlives the object; nested CV builds one per inner split.
    """

    def __init__(self, run: _Run, index: int, X_tr, y_tr, X_te, y_te, V_tr=None):
        self.run, self.index = run, index
        self.X_tr, self.y_tr, self.X_te, self.y_te = X_tr, y_tr, X_te, y_te
        self.V_tr = V_tr  # the counts behind X_tr's cells (a table with --values count), else None
        self.block_rows = default_block_size(run.n_features, X_tr.shape[0])
        self._lazy: dict[str, object] = {}
        self._scored: dict[tuple, tuple] = {}
        self._base = {"dataset": run.dataset, "fold": index, "n_features": run.n_features,
                      "n_train": X_tr.shape[0], "n_test": X_te.shape[0],
                      "pos_label": str(run.pos) if len(run.labels) <= 2 else ""}  # more classes: none is positive

    def inner(self, itr, iva) -> _Fold:
        """The fold of an inner split of this fold's training part."""
        return _Fold(self.run, self.index, self.X_tr[itr], self.y_tr[itr], self.X_tr[iva], self.y_tr[iva],
                     None if self.V_tr is None else self.V_tr[itr])

    def fit_input(self, sel):
        """What ``sel`` is fitted on: the counts when the table has them and it reads them
        (:func:`selection.base.reads_counts`), else the binary training part."""
        return self.V_tr if self.V_tr is not None and reads_counts(sel) else self.X_tr

    def row(self, method: MethodSpec, clf: MethodSpec, **kw) -> dict:
        return {**self._base, **_BLANK_ROW, "selector": method.label, "params": params_json(method.params),
                "classifier": clf.label, "kind": method.kind, **kw}

    def failed(self, method: MethodSpec, exc: BaseException, **kw) -> list[dict]:
        """One failed row per classifier."""
        return [self.row(method, c, status="failed", error=_error_text(exc), **kw) for c in self.run.classifiers]

    def score(self, pred, proba, classes, n_selected) -> dict:
        r = self.run
        return fold_metrics(self.y_te, pred, proba, classes, pos_label=r.pos,
                            compression=compression(n_selected, r.n_features), labels=r.labels,
                            multiclass=r.options.multiclass_average)

    def lazy_classifier(self, clf: MethodSpec):
        """The per-instance form of classifier ``clf`` fitted on the training part (once per fold)."""
        if clf.label not in self._lazy:
            self._lazy[clf.label] = clf.build_lazy().fit(self.X_tr, self.y_tr)
        return self._lazy[clf.label]

    def lazy_scores(self, selector, clf: MethodSpec):
        """``(pred, proba, classes)`` of :class:`LazySelectionClassifier` on the test part."""
        model = LazySelectionClassifier(selector=selector, block_size=self.block_rows,
                                        classifier=FrozenEstimator(self.lazy_classifier(clf)))
        proba = model.fit(self.X_tr, self.y_tr).predict_proba(self.X_te)
        return model.classes_[np.argmax(proba, axis=1)], proba, model.classes_

    def evaluate_mask(self, clf: MethodSpec, mask: np.ndarray) -> tuple[dict, float]:
        """Metrics of classifier ``clf`` on the columns of an eager ``mask``, and the seconds it took."""
        key = (clf.label, np.packbits(mask).tobytes())
        if key not in self._scored:
            t0 = time.perf_counter()
            if self.run.options.lazy_classifiers_for_eager:  # the same mask for every test instance
                pred, proba, classes = self.lazy_scores(FixedSupport(mask), clf)
            else:
                pred, proba, classes = eager_classify(clf, self.X_tr, self.y_tr, self.X_te, mask, self.run.hierarchy)
            self._scored[key] = (self.score(pred, proba, classes, int(mask.sum())), time.perf_counter() - t0)
        return self._scored[key]


def _folds(run: _Run, X, y, n_splits: int, folds, values=None) -> Iterable[_Fold]:
    wanted = None if folds is None else {int(f) for f in folds}
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=run.random_state)
    for k, (tr, te) in enumerate(splitter.split(np.zeros(len(y)), y)):
        if wanted is None or k in wanted:
            yield _Fold(run, k, X[tr], y[tr], X[te], y[te], None if values is None else values[tr])


# ------------------------------------------------------------------ threshold sweep
def _sweep_masks(sel, X, y, grid) -> np.ndarray:
    """Boolean masks (len(grid) x n_features), one per threshold, of the unfitted selector ``sel`` fitted on ``(X, y)``.

    Cheap when the selector offers ``supports_for_thresholds`` (scores fitted once, only the
    cut varies; SHSEL, SIG/SC; checked against refits in their tests); otherwise a refit per
    threshold.
    """
    grid = np.asarray(grid, dtype=float)
    if hasattr(sel, "supports_for_thresholds"):
        sel.fit(X, y)
        masks = np.asarray(sel.supports_for_thresholds(grid), dtype=bool)
        if masks.shape != (len(grid), X.shape[1]):
            raise ValueError(f"supports_for_thresholds returned shape {masks.shape}, "
                             f"expected {(len(grid), X.shape[1])}")
        return masks
    out = np.zeros((len(grid), X.shape[1]), dtype=bool)
    for i, t in enumerate(grid):
        sel.set_params(threshold=float(t))
        sel.fit(X, y)
        out[i] = support_of(sel, X.shape[1])
    return out


def _pick(values: np.ndarray, compressions: np.ndarray, grid: np.ndarray) -> int:
    """Index of the best threshold: max value, then max compression, then lowest threshold."""
    v = np.where(np.isnan(values), -np.inf, values)
    c = np.where(np.isnan(compressions), -np.inf, compressions)
    order = np.lexsort((grid, -c, -v))  # last key is primary
    return int(order[0])


def choose_best_on_test(sweep: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """From sweep rows (every threshold x fold), keep the threshold with the best mean ``metric``.

    Chosen per dataset x selector x params x classifier, over all folds at once (optimistic:
    the test folds choose). Rows of methods without a sweep pass through unchanged.

    Parameters
    ----------
    sweep : pandas.DataFrame
        Rows with the columns :data:`COLUMNS`, e.g. ``evaluate_table(..., keep_sweep=True)``.
    metric : str
        The column maximised (ties: higher compression, then lower threshold).

    Returns
    -------
    pandas.DataFrame
        One row per dataset x selector x classifier x fold.

    Examples
    --------
    >>> rows = pd.DataFrame({"dataset": "d", "selector": "s", "params": "{}", "classifier": "nb",
    ...                      "fold": [0, 0, 1, 1], "threshold": [0.5, 0.9, 0.5, 0.9],
    ...                      "accuracy": [0.7, 0.8, 0.7, 0.9], "compression": 0.5,
    ...                      "threshold_choice": "best-on-test", "status": "ok"})
    >>> choose_best_on_test(rows)["threshold"].tolist()
    [0.9, 0.9]
    """
    if sweep.empty:
        return sweep
    keys = ["dataset", "selector", "params", "classifier"]
    is_sweep = sweep["threshold_choice"].eq("best-on-test")
    out = [sweep[~is_sweep]]
    sw = sweep[is_sweep]
    for _, g in sw.groupby(keys, sort=False, dropna=False):
        ok = g[g["status"] == "ok"]
        if ok.empty:
            out.append(g.drop_duplicates("fold"))
            continue
        m = ok.groupby("threshold")[[metric, "compression"]].mean()
        grid = m.index.to_numpy(dtype=float)
        best = grid[_pick(m[metric].to_numpy(), m["compression"].to_numpy(), grid)]
        chosen = g[np.isclose(g["threshold"].astype(float), best) | (g["status"] != "ok")]
        out.append(chosen.drop_duplicates("fold"))
    res = pd.concat(out, ignore_index=True)
    return res.sort_values(["dataset", "selector", "classifier", "fold"], kind="stable").reset_index(drop=True)


# ------------------------------------------------------------------ main entry point
def evaluate_table(table, selectors, classifiers, *, dataset: str, n_splits: int = 10, random_state: int = 0,
                   folds: Iterable[int] | None = None, options: CVOptions | None = None) -> pd.DataFrame:
    """Cross-validate ``selectors`` x ``classifiers`` on ``table``.

    Parameters
    ----------
    table : kg.table.FeatureTable
        Binary table with labels ``y``; its hierarchy is given to every selector that takes one
        and has none set.
    selectors, classifiers : list
        Registry names, ``(name, params)`` pairs, estimators or ``(label, estimator)`` pairs (see
        :mod:`selection.evaluation.specs`); each estimator is cloned for every fit.
    dataset : str
        Name written in the ``dataset`` column.
    n_splits, random_state : int
        Stratified k-fold with shuffling, seeded.
    folds : iterable of int, optional
        Only these fold indices (0-based) -- the grid runs one fold per task.
    options : CVOptions, optional
        Thresholds, the positive class, lazy classifiers for eager selectors, multi-class
        averaging (default ``CVOptions()``).

    Returns
    -------
    pandas.DataFrame with the columns :data:`COLUMNS`, one row per selector x classifier x fold.

    Examples
    --------
    >>> from kg.hierarchy import FeatureHierarchy
    >>> from kg.table import FeatureTable
    >>> from sklearn.feature_selection import SelectKBest, chi2
    >>> h = FeatureHierarchy.from_edges([("b", "a")], nodes=["a", "b", "c"])
    >>> facts = {f"i{i}": (["b"] if i % 2 else ["c"]) for i in range(20)}
    >>> t = FeatureTable.from_facts(facts, h, labels={f"i{i}": i % 2 for i in range(20)})
    >>> df = evaluate_table(t, ["complete", SelectKBest(chi2, k=1)], ["nb"], dataset="toy", n_splits=5)
    >>> len(df), df["accuracy"].tolist()[:2]
    (10, [1.0, 1.0])
    >>> df.groupby("selector", sort=False)["n_selected"].mean().to_dict()
    {'complete': 3.0, 'SelectKBest[k=1,score_func=chi2]': 1.0}
    """
    options = CVOptions() if options is None else options
    methods = method_specs(selectors, "selector")  # every name resolved before any work
    clfs = method_specs(classifiers, "classifier")
    y = None if table.y is None else np.asarray(table.y)
    check_folds(y, n_splits, dataset)
    X = sp.csr_matrix(table.X)
    run = _Run(dataset=dataset, hierarchy=table.hierarchy, classifiers=clfs, options=options,
               pos=positive_label(y, options.pos_label), labels=np.unique(y), n_features=X.shape[1],
               random_state=random_state,
               is_root=_roots(table.hierarchy))
    values = None if getattr(table, "values", None) is None else sp.csr_matrix(table.values)
    rows = [r for fold in _folds(run, X, y, n_splits, folds, values) for method in methods
            for r in _run_method(fold, method)]
    df = pd.DataFrame(rows, columns=COLUMNS)
    if options.threshold == "best-on-test" and not options.keep_sweep:
        df = choose_best_on_test(df, options.threshold_metric)
    return df


def _roots(hierarchy) -> np.ndarray | None:
    """Which features are tops of the hierarchy, for :func:`degenerate_selection`: roots with children (a root
    without any is a flat feature, as a relation without subproperties beside types in one table); ``None`` for
    a flat table (no edges, no top)."""
    if hierarchy is None or not hierarchy.n_edges:
        return None
    return (np.asarray(hierarchy.n_parents) == 0) & (np.asarray(hierarchy.n_children) > 0)


def _run_method(fold: _Fold, method: MethodSpec) -> list[dict]:
    if method.kind == "lazy":
        return _run_lazy(fold, method)
    if method.threshold_grid is not None and fold.run.options.sweeps:
        grid = fold.run.options.thresholds
        return _run_sweep(fold, method, np.asarray(method.threshold_grid if grid is None else grid, dtype=float))
    return _run_eager(fold, method)


def _built(fold: _Fold, method: MethodSpec):
    """A fresh selector over the table's hierarchy, at the fixed threshold when one is given."""
    sel = method.build(fold.run.hierarchy)
    t = fold.run.options.fixed_threshold
    if t is not None and method.threshold_grid is not None:
        sel.set_params(threshold=t)
    return sel


def _run_eager(fold: _Fold, method: MethodSpec) -> list[dict]:
    swept = method.threshold_grid is not None
    thr = np.nan
    t0 = time.perf_counter()
    try:
        sel = _built(fold, method)
        thr = sel.get_params()["threshold"] if swept else np.nan
        sel.fit(fold.fit_input(sel), fold.y_tr)
        mask = support_of(sel, fold.X_tr.shape[1])
    except Exception as exc:  # noqa: BLE001 - a failing selector must not stop the grid
        log.warning("selector %s failed: %s", method.label, exc)
        return fold.failed(method, exc, threshold=thr)
    secs = time.perf_counter() - t0
    t = fold.run.options.threshold
    choice = "" if not swept else (t if isinstance(t, str) else ("" if t is None else "fixed"))
    why = degenerate_selection(mask, fold.X_tr, fold.run.is_root)
    out = []
    for clf in fold.run.classifiers:
        try:
            m, csecs = fold.evaluate_mask(clf, mask)
            out.append(fold.row(method, clf, n_selected=int(mask.sum()), select_seconds=secs,
                                classify_seconds=csecs, threshold=thr, threshold_choice=choice, degenerate=why, **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("classifier %s after %s failed: %s", clf.label, method.label, exc)
            out.append(fold.row(method, clf, status="failed", error=_error_text(exc),
                                n_selected=int(mask.sum()), select_seconds=secs, threshold=thr))
    return out


def _run_lazy(fold: _Fold, method: MethodSpec) -> list[dict]:
    t0 = time.perf_counter()
    try:
        sel = _built(fold, method)
        sel.fit(fold.X_tr, fold.y_tr)
        shared = SharedSelection(sel)
        n_sel = shared.mean_selected(fold.X_te, fold.block_rows)
    except Exception as exc:  # noqa: BLE001
        log.warning("lazy selector %s failed: %s", method.label, exc)
        return fold.failed(method, exc)
    secs = time.perf_counter() - t0
    out = []
    for clf in fold.run.classifiers:
        try:
            t1 = time.perf_counter()
            m = fold.score(*fold.lazy_scores(shared, clf), n_sel)
            out.append(fold.row(method, clf, n_selected=n_sel, select_seconds=secs,
                                classify_seconds=time.perf_counter() - t1, degenerate="" if n_sel else "empty", **m))
        except Exception as exc:  # noqa: BLE001
            log.warning("lazy classifier %s after %s failed: %s", clf.label, method.label, exc)
            out.append(fold.row(method, clf, status="failed", error=_error_text(exc), n_selected=n_sel,
                                select_seconds=secs))
    return out


def _run_sweep(fold: _Fold, method: MethodSpec, grid: np.ndarray) -> list[dict]:
    """A threshold method under ``best-on-test`` (every threshold scored on the test part; the
    choice comes after all folds) or ``nested`` (the threshold an inner CV chose, per classifier)."""
    choice = fold.run.options.threshold
    t0 = time.perf_counter()
    try:
        own = method.build(fold.run.hierarchy).get_params()["threshold"]  # the fallback of the nested choice
        chosen = _nested_choice(fold, method, grid) if choice == "nested" else None
        sel = method.build(fold.run.hierarchy)
        masks = _sweep_masks(sel, fold.fit_input(sel), fold.y_tr, grid)
    except Exception as exc:  # noqa: BLE001
        log.warning("threshold sweep of %s failed: %s", method.label, exc)
        return fold.failed(method, exc, threshold_choice=choice)
    secs = time.perf_counter() - t0
    if chosen is None:
        picks = [(clf, i) for clf in fold.run.classifiers for i in range(len(grid))]
    else:  # the inner CV's choice per classifier; without one the selector's own threshold, else the last
        picks = []
        for clf in fold.run.classifiers:
            t = chosen.get(clf.label, own)
            picks.append((clf, int(np.argmin(np.abs(grid - float(grid[-1] if t is None else t))))))
    out = []
    for clf, i in picks:
        mask = masks[i]
        try:
            m, csecs = fold.evaluate_mask(clf, mask)
            out.append(fold.row(method, clf, n_selected=int(mask.sum()), select_seconds=secs,
                                classify_seconds=csecs, threshold=float(grid[i]), threshold_choice=choice,
                                degenerate=degenerate_selection(mask, fold.X_tr, fold.run.is_root), **m))
        except Exception as exc:  # noqa: BLE001
            out.append(fold.row(method, clf, status="failed", error=_error_text(exc), threshold=float(grid[i]),
                                threshold_choice=choice))
    return out


def _nested_choice(fold: _Fold, method: MethodSpec, grid: np.ndarray) -> dict[str, float]:
    """Per classifier label, the threshold an inner stratified CV of the training part chooses
    (best mean ``threshold_metric``, then compression); empty when the training part is too small."""
    run, y_tr = fold.run, fold.y_tr
    min_count = int(np.unique(y_tr, return_counts=True)[1].min())
    k_inner = min(run.options.inner_splits, min_count)
    if k_inner < 2:
        log.warning("%s: no inner CV possible (smallest class has %d training instances); "
                    "using the default threshold", method.label, min_count)
        return {}
    metric = run.options.threshold_metric
    inner = StratifiedKFold(n_splits=k_inner, shuffle=True, random_state=run.random_state + fold.index)
    value = {c.label: np.zeros(len(grid)) for c in run.classifiers}
    comp = {c.label: np.zeros(len(grid)) for c in run.classifiers}
    for itr, iva in inner.split(np.zeros(len(y_tr)), y_tr):
        sub = fold.inner(itr, iva)
        sel = method.build(run.hierarchy)
        masks = _sweep_masks(sel, sub.fit_input(sel), sub.y_tr, grid)
        for clf in run.classifiers:
            per_t = [sub.evaluate_mask(clf, mask)[0] for mask in masks]
            value[clf.label] += np.array([d[metric] for d in per_t]) / k_inner
            comp[clf.label] += np.array([d["compression"] for d in per_t]) / k_inner
    return {c.label: float(grid[_pick(value[c.label], comp[c.label], grid)]) for c in run.classifiers}
